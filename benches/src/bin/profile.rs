//! Runs one operation over one kind of input in a loop, for `perf record`.
//!
//! `cargo run -p airlock-benches --release --bin profile -- <op> <kind> [seconds]`
//! (`AIRLOCK_FORCE_PORTABLE=1` or `AIRLOCK_FORCE_AVX2=1` as for the gate)
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::arithmetic_side_effects
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use airlock_benches::{Kind, Op, Pool, Scratch};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // As the gate: AIRLOCK_FORCE_PORTABLE=1, AIRLOCK_FORCE_AVX2=1.
    let forced = |name| std::env::var_os(name).is_some_and(|v| v != "0");
    let ops = [
        Op::Memcpy,
        Op::FromUtf8,
        Op::Scan,
        Op::Strip,
        Op::NaiveStrip,
        Op::Truncate,
        Op::Sanitize,
        Op::NaiveSanitize,
        Op::Fence,
        Op::Frontmatter,
        Op::StrictStrip,
        Op::StrictSanitize,
    ];
    let arg = |i: usize| args.get(i).map_or("", String::as_str);
    let op = Op::named(arg(0), &ops).unwrap_or(Op::Sanitize);
    let kind = Kind::named(arg(1)).unwrap_or(Kind::Mixed);
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let mut pool = Pool::new(kind);
    let mut scratch = Scratch::on(airlock_benches::backend_for(
        forced("AIRLOCK_FORCE_PORTABLE"),
        forced("AIRLOCK_FORCE_AVX2"),
    ));
    let start = Instant::now();
    let mut bytes = 0usize;
    while start.elapsed() < Duration::from_secs_f64(secs) {
        let piece = pool.piece(64 << 10);
        bytes += piece.len();
        black_box(scratch.run(op, black_box(piece)));
    }
    println!(
        "{} {}: {:.3} GB/s",
        op.name(),
        kind.name(),
        bytes as f64 / start.elapsed().as_secs_f64() / 1e9
    );
}
