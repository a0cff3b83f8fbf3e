//! The throughput ratio gate (issue 9): measures pairs of operations in one run,
//! interleaved (A B A B …, medians), on fresh 64 KiB pieces from 16 MiB pools, prints
//! every ratio and exits 1 when a floor is broken.
//!
//! `cargo run -p airlock-benches --release --bin gate -- [--quick] [--portable] [--avx2]`
#![allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use airlock_benches::{Kind, Op, Pool, Scratch};

const PIECE: usize = 64 << 10;

/// One side of a ratio: an operation over a pool.
struct Side {
    op: Op,
    kind: Kind,
}

struct Bench {
    pools: Vec<(Kind, Pool)>,
    scratch: Scratch,
    rounds: usize,
    pieces: usize,
}

impl Bench {
    fn pool(&mut self, kind: Kind) -> &mut Pool {
        if !self.pools.iter().any(|(k, _)| *k == kind) {
            self.pools.push((kind, Pool::new(kind)));
        }
        &mut self.pools.iter_mut().find(|(k, _)| *k == kind).unwrap().1
    }

    /// Bytes per second of one sample: `pieces` fresh pieces in turn.
    fn sample(&mut self, side: &Side) -> f64 {
        let pieces = self.pieces;
        self.pool(side.kind);
        let Bench { pools, scratch, .. } = self;
        let pool = &mut pools.iter_mut().find(|(k, _)| *k == side.kind).unwrap().1;
        let ranges: Vec<_> = (0..pieces).map(|_| pool.next_range(PIECE)).collect();
        let whole = pool.text();
        let mut bytes = 0usize;
        let start = Instant::now();
        for range in ranges {
            bytes += range.len();
            black_box(scratch.run(side.op, black_box(&whole[range])));
        }
        bytes as f64 / start.elapsed().as_secs_f64()
    }

    /// Medians of A and B, sampled alternately.
    fn pair(&mut self, a: &Side, b: &Side) -> (f64, f64) {
        // Warm up both (page faults, caches of the code).
        self.sample(a);
        self.sample(b);
        let (mut xa, mut xb) = (Vec::new(), Vec::new());
        for _ in 0..self.rounds {
            xa.push(self.sample(a));
            xb.push(self.sample(b));
        }
        (median(&mut xa), median(&mut xb))
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn gbs(x: f64) -> f64 {
    x / 1e9
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let portable = args.iter().any(|a| a == "--portable")
        || std::env::var_os("AIRLOCK_FORCE_PORTABLE").is_some_and(|v| v != "0");
    let avx2 = args.iter().any(|a| a == "--avx2")
        || std::env::var_os("AIRLOCK_FORCE_AVX2").is_some_and(|v| v != "0");
    let backend = airlock_benches::backend_for(portable, avx2);
    let mut bench = Bench {
        pools: Vec::new(),
        scratch: Scratch::on(backend),
        rounds: if quick { 9 } else { 41 },
        pieces: 16,
    };
    println!(
        "airlock gate: scan backend {}, dense drops {}, {} rounds of {} x 64 KiB fresh pieces from 16 MiB pools",
        backend.scan_name(),
        backend.dense_drop_name(),
        bench.rounds,
        bench.pieces
    );
    println!(
        "{:<58} {:>9} {:>9} {:>8} {:>8}  verdict",
        "ratio (A / B)", "A GB/s", "B GB/s", "ratio", "floor"
    );
    let filter = std::env::var("GATE_FILTER").unwrap_or_default();
    let mut failed = false;
    let mut check = |bench: &mut Bench, label: &str, a: Side, b: Side, floor: f64, gated: bool| {
        if !label.contains(filter.as_str()) {
            return;
        }
        let (ta, tb) = bench.pair(&a, &b);
        let ratio = ta / tb;
        let ok = ratio >= floor;
        let verdict = match (gated, ok) {
            // A floor of 0 marks a ratio printed for context only.
            (false, _) if floor <= 0.0 => "context",
            (true, true) => "ok",
            (true, false) => "FAIL",
            (false, true) => "target met",
            (false, false) => "target missed",
        };
        failed |= gated && !ok;
        println!(
            "{label:<58} {:>9.2} {:>9.2} {ratio:>8.3} {floor:>8.3}  {verdict}",
            gbs(ta),
            gbs(tb)
        );
    };
    use Kind::*;
    use Op::*;
    let s = |op, kind| Side { op, kind };
    check(
        &mut bench,
        "scan clean / memcpy clean",
        s(Scan, Clean),
        s(Memcpy, Clean),
        0.5,
        true,
    );
    check(
        &mut bench,
        "strip clean / memcpy clean",
        s(Strip, Clean),
        s(Memcpy, Clean),
        0.25,
        true,
    );
    check(
        &mut bench,
        "sanitize(bytes) mixed / memcpy mixed",
        s(Sanitize, Mixed),
        s(Memcpy, Mixed),
        1.0 / 16.0,
        true,
    );
    check(
        &mut bench,
        "  target: sanitize(bytes) mixed / memcpy mixed",
        s(Sanitize, Mixed),
        s(Memcpy, Mixed),
        1.0 / 8.0,
        false,
    );
    check(
        &mut bench,
        "sanitize mixed / naive per-char sanitize mixed",
        s(Sanitize, Mixed),
        s(NaiveSanitize, Mixed),
        10.0,
        true,
    );
    check(
        &mut bench,
        "strip mixed / naive per-char strip mixed",
        s(Strip, Mixed),
        s(NaiveStrip, Mixed),
        10.0,
        true,
    );
    check(
        &mut bench,
        "from_utf8 mixed / memcpy mixed (context)",
        s(FromUtf8, Mixed),
        s(Memcpy, Mixed),
        0.0,
        false,
    );
    // The strict profile (issue 14). The gated floor guards against a collapse; the
    // issue's target (a third of the reference on mixed prose) is not met yet and is
    // reported as a target.
    check(
        &mut bench,
        "strict-sanitize mixed / sanitize_prose mixed",
        s(StrictSanitize, Mixed),
        s(Sanitize, Mixed),
        1.0 / 40.0,
        true,
    );
    check(
        &mut bench,
        "  target: strict-sanitize mixed / sanitize_prose mixed",
        s(StrictSanitize, Mixed),
        s(Sanitize, Mixed),
        1.0 / 3.0,
        false,
    );
    check(
        &mut bench,
        "strict-strip mixed / strip mixed (context)",
        s(StrictStrip, Mixed),
        s(Strip, Mixed),
        0.0,
        false,
    );
    for op in [StrictStrip, StrictSanitize] {
        for kind in Kind::HOSTILE {
            // Targets, not floors yet: strict's dense drops run code point by code point.
            let label = format!(
                "  target: {} {} / {} clean",
                op.name(),
                kind.name(),
                op.name()
            );
            check(
                &mut bench,
                &label,
                s(op, kind),
                s(op, Clean),
                1.0 / 8.0,
                false,
            );
        }
    }
    for op in [Scan, Strip, Sanitize, Fence, Frontmatter] {
        for kind in Kind::HOSTILE {
            // Two pairs cannot fail, so they are printed for context, not gated: the
            // scan returns at the first hit of hostile-invisible text, and the gate
            // parses only the rule's fixed frontmatter block, whatever the body.
            let gated = op != Frontmatter && !(op == Scan && kind == HostileInvisible);
            let label = format!(
                "{} {} / {} clean ({})",
                op.name(),
                kind.name(),
                op.name(),
                if gated { ">= 1/8" } else { "context" }
            );
            check(
                &mut bench,
                &label,
                s(op, kind),
                s(op, Clean),
                if gated { 1.0 / 8.0 } else { 0.0 },
                gated,
            );
        }
    }
    if failed {
        println!("gate: FAILED (a floor is broken)");
        ExitCode::FAILURE
    } else {
        println!("gate: ok");
        ExitCode::SUCCESS
    }
}
