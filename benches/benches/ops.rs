//! criterion benches, one group per operation, each input kind at 64 B, 2 KiB, 64 KiB
//! and 16 MiB, beside the baselines (memcpy, `from_utf8`, plain per-char versions).
//! "fresh": pieces taken in turn from a 16 MiB pool; "reused": the same piece each time.
#![allow(
    missing_docs,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::hint::black_box;

use airlock_benches::{Kind, Op, Pool, Scratch};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const SIZES: [(usize, &str); 4] = [
    (64, "64B"),
    (2 << 10, "2KiB"),
    (64 << 10, "64KiB"),
    (16 << 20, "16MiB"),
];

fn group(c: &mut Criterion, name: &str, ops: &[Op], pools: &mut [(Kind, Pool)]) {
    let mut g = c.benchmark_group(name);
    let mut scratch = Scratch::default();
    for (kind, pool) in pools.iter_mut() {
        for &(size, size_name) in &SIZES {
            g.throughput(Throughput::Bytes(size as u64));
            if size >= 16 << 20 {
                g.sample_size(10);
            } else {
                g.sample_size(50);
            }
            for &op in ops {
                let id =
                    BenchmarkId::new(format!("{}/{}/fresh", op.name(), kind.name()), size_name);
                g.bench_function(id, |b| {
                    b.iter(|| {
                        let piece = pool.piece(size);
                        black_box(scratch.run(op, black_box(piece)))
                    })
                });
                if size < 16 << 20 {
                    let id = BenchmarkId::new(
                        format!("{}/{}/reused", op.name(), kind.name()),
                        size_name,
                    );
                    let piece = pool.first(size).to_owned();
                    g.bench_function(id, |b| {
                        b.iter(|| black_box(scratch.run(op, black_box(&piece))))
                    });
                }
            }
        }
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let mut pools: Vec<(Kind, Pool)> = Kind::ALL.into_iter().map(|k| (k, Pool::new(k))).collect();
    use Op::*;
    group(c, "classify-scan", &[Scan, Memcpy, FromUtf8], &mut pools);
    group(c, "strip", &[Strip, NaiveStrip, Memcpy], &mut pools);
    group(c, "truncate", &[Truncate, Memcpy], &mut pools);
    group(
        c,
        "sanitize_prose",
        &[Sanitize, NaiveSanitize, Memcpy, FromUtf8],
        &mut pools,
    );
    group(c, "fence", &[Fence, Memcpy], &mut pools);
    group(c, "frontmatter-gate", &[Frontmatter, Memcpy], &mut pools);
}

criterion_group!(ops, benches);
criterion_main!(ops);
