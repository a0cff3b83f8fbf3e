//! The throughput ratio gate (issues 9 and 17): measures pairs of operations in one
//! run, interleaved (A B A B …, medians), on fresh 64 KiB pieces from 16 MiB pools,
//! prints every ratio and exits 1 when a floor is broken.
//!
//! Each sample is timed in the thread's own CPU time, so the time it waits for a core
//! on a busy machine is not counted; a ratio under its floor is measured again (up to
//! [`ATTEMPTS`] times, best kept) before it fails. Floors are calibrated per backend
//! (SIMD, portable) to hold on a loaded 2-core machine; the ambitious targets are
//! printed beside them and never gate (`--report` prints them for every ratio and
//! always exits 0: the bench command, `scripts/bench.sh`).
//!
//! `cargo run -p airlock-benches --release --bin gate -- [--quick] [--portable] [--avx2] [--report]`
#![allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::hint::black_box;
use std::process::ExitCode;

use airlock_benches::{Kind, Op, Pool, Scratch, ThreadClock};

const PIECE: usize = 64 << 10;

/// How many times a ratio is measured before it fails.
const ATTEMPTS: usize = 3;

/// One side of a ratio: an operation over a pool.
struct Side {
    op: Op,
    kind: Kind,
}

/// The floors a ratio is gated against, one per backend family, and the target it is
/// reported against. A floor of 0 marks a ratio printed for context only.
#[derive(Clone, Copy)]
struct Bar {
    /// x86 SIMD (AVX2 scan; AVX-512 or AVX2 + BMI2 dense drops).
    simd: f64,
    /// The portable path (SWAR scan, table dense drops): aarch64, Apple Silicon,
    /// x86 without AVX2, `--portable`.
    portable: f64,
    /// The ambitious target (reported, never gated).
    target: f64,
}

/// Which floors apply.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Simd,
    Portable,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::Simd => "simd",
            Family::Portable => "portable",
        }
    }
}

struct Bench {
    pools: Vec<(Kind, Pool)>,
    scratch: Scratch,
    rounds: usize,
    pieces: usize,
    clock: ThreadClock,
}

/// The medians of one interleaved measurement, bytes per CPU-second.
struct PairRates {
    a: f64,
    b: f64,
}

impl Bench {
    fn pool(&mut self, kind: Kind) -> &mut Pool {
        if !self.pools.iter().any(|(k, _)| *k == kind) {
            self.pools.push((kind, Pool::new(kind)));
        }
        &mut self.pools.iter_mut().find(|(k, _)| *k == kind).unwrap().1
    }

    /// Bytes per CPU-second of one sample: `pieces` fresh pieces in turn.
    fn sample(&mut self, side: &Side) -> f64 {
        let pieces = self.pieces;
        self.pool(side.kind);
        let Bench {
            pools,
            scratch,
            clock,
            ..
        } = self;
        let pool = &mut pools.iter_mut().find(|(k, _)| *k == side.kind).unwrap().1;
        let ranges: Vec<_> = (0..pieces).map(|_| pool.next_range(PIECE)).collect();
        let whole = pool.text();
        let mut bytes = 0usize;
        let start = clock.now();
        for range in ranges {
            bytes += range.len();
            black_box(scratch.run(side.op, black_box(&whole[range])));
        }
        bytes as f64 / clock.since(start).max(1e-9)
    }

    /// Medians of A and B, sampled alternately.
    fn pair(&mut self, a: &Side, b: &Side) -> PairRates {
        // Warm up both (page faults, caches of the code).
        self.sample(a);
        self.sample(b);
        let (mut xa, mut xb) = (Vec::new(), Vec::new());
        for _ in 0..self.rounds {
            xa.push(self.sample(a));
            xb.push(self.sample(b));
        }
        PairRates {
            a: median(&mut xa),
            b: median(&mut xb),
        }
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
    let report = args.iter().any(|a| a == "--report");
    let portable = args.iter().any(|a| a == "--portable")
        || std::env::var_os("AIRLOCK_FORCE_PORTABLE").is_some_and(|v| v != "0");
    let avx2 = args.iter().any(|a| a == "--avx2")
        || std::env::var_os("AIRLOCK_FORCE_AVX2").is_some_and(|v| v != "0");
    let backend = airlock_benches::backend_for(portable, avx2);
    let scan_backend = backend.scan_name();
    let drop_backend = backend.dense_drop_name();
    // Either half on its portable code makes the portable floors the ones that hold.
    let family = if scan_backend.starts_with("portable") || drop_backend.starts_with("portable") {
        Family::Portable
    } else {
        Family::Simd
    };
    let mut bench = Bench {
        pools: Vec::new(),
        scratch: Scratch::on(backend),
        rounds: if quick { 9 } else { 41 },
        pieces: 16,
        clock: ThreadClock::new(),
    };
    println!(
        "airlock gate: scan backend {scan_backend}, dense drops {drop_backend} ({} floors), {} rounds of {} x 64 KiB fresh pieces from 16 MiB pools, {} time{}",
        family.name(),
        bench.rounds,
        bench.pieces,
        bench.clock.name(),
        if report {
            ", report only (never fails)"
        } else {
            ""
        }
    );
    println!(
        "{:<58} {:>8} {:>8} {:>8} {:>7} {:>7}  verdict",
        "ratio (A / B)", "A GB/s", "B GB/s", "ratio", "floor", "target"
    );
    let filter = std::env::var("GATE_FILTER").unwrap_or_default();
    let mut failed = false;
    let mut check = |bench: &mut Bench, label: &str, a: Side, b: Side, bar: Bar| {
        if !label.contains(filter.as_str()) {
            return;
        }
        let floor = match family {
            Family::Simd => bar.simd,
            Family::Portable => bar.portable,
        };
        let gated = floor > 0.0 && !report;
        // A ratio under its floor is measured again before it fails: one unlucky
        // stretch (a neighbour's burst on the sibling hyperthread, a migration)
        // cannot fail the gate, a regression fails every attempt.
        let mut best: Option<PairRates> = None;
        let mut attempts = 0;
        while attempts < ATTEMPTS {
            attempts += 1;
            let rates = bench.pair(&a, &b);
            if best.as_ref().is_none_or(|r| rates.a / rates.b > r.a / r.b) {
                best = Some(rates);
            }
            let ratio = best.as_ref().map_or(0.0, |r| r.a / r.b);
            if !gated || ratio >= floor {
                break;
            }
        }
        let rates = best.unwrap();
        let ratio = rates.a / rates.b;
        let verdict = if floor <= 0.0 && bar.target <= 0.0 {
            "context".to_string()
        } else if gated && ratio < floor {
            format!("FAIL ({attempts} attempts)")
        } else {
            let mut v = String::from(if gated { "ok" } else { "reported" });
            if bar.target > 0.0 {
                v.push_str(if ratio >= bar.target {
                    ", target met"
                } else {
                    ", target missed"
                });
            }
            if attempts > 1 {
                v.push_str(&format!(" (attempt {attempts})"));
            }
            v
        };
        failed |= gated && ratio < floor;
        println!(
            "{label:<58} {:>8.2} {:>8.2} {ratio:>8.3} {floor:>7.3} {:>7.3}  {verdict}",
            gbs(rates.a),
            gbs(rates.b),
            bar.target
        );
    };
    use Kind::*;
    use Op::*;
    let s = |op, kind| Side { op, kind };
    let bar = |simd, portable, target| Bar {
        simd,
        portable,
        target,
    };
    // Floors: what holds on a loaded 2-core machine (five quick runs in a row with
    // one core kept busy, BENCHMARKS.md), with room to spare; a real regression (a
    // lost fast path, a second pass) costs 2x or more and breaks them.
    check(
        &mut bench,
        "scan clean / memcpy clean",
        s(Scan, Clean),
        s(Memcpy, Clean),
        bar(0.35, 0.12, 0.5),
    );
    check(
        &mut bench,
        "strip clean / memcpy clean",
        s(Strip, Clean),
        s(Memcpy, Clean),
        bar(0.25, 0.25, 0.5),
    );
    check(
        &mut bench,
        "sanitize(bytes) mixed / memcpy mixed",
        s(Sanitize, Mixed),
        s(Memcpy, Mixed),
        bar(1.0 / 16.0, 0.02, 1.0 / 8.0),
    );
    check(
        &mut bench,
        "sanitize mixed / naive per-char sanitize mixed",
        s(Sanitize, Mixed),
        s(NaiveSanitize, Mixed),
        bar(8.0, 2.5, 10.0),
    );
    check(
        &mut bench,
        "strip mixed / naive per-char strip mixed",
        s(Strip, Mixed),
        s(NaiveStrip, Mixed),
        bar(6.0, 4.0, 10.0),
    );
    check(
        &mut bench,
        "from_utf8 mixed / memcpy mixed (context)",
        s(FromUtf8, Mixed),
        s(Memcpy, Mixed),
        bar(0.0, 0.0, 0.0),
    );
    // The strict profile (issue 14). The gated floors guard against a collapse and
    // are set well under what the shared machine measures (BENCHMARKS.md); the
    // issue's targets that are not met yet are reported as targets.
    check(
        &mut bench,
        "strict-sanitize mixed / sanitize_prose mixed",
        s(StrictSanitize, Mixed),
        s(Sanitize, Mixed),
        // With step 2's and the matcher's stops refined by their own byte tables
        // (BENCHMARKS.md, "Strict over mixed prose, sixth round") 0.516-0.561 at load
        // 4, with a core kept busy too; the floor sits under half of the lowest. The
        // portable floor is main's: the strict scans were measured on AVX2 only.
        bar(1.0 / 4.0, 1.0 / 40.0, 1.0 / 3.0),
    );
    check(
        &mut bench,
        "strict-strip mixed / strip mixed (context)",
        s(StrictStrip, Mixed),
        s(Strip, Mixed),
        bar(0.0, 0.0, 0.0),
    );
    for op in [StrictStrip, StrictSanitize] {
        for kind in Kind::HOSTILE {
            // The prefix texts meet "within 8x of clean" with room, so that is their
            // floor (sanitize's literal prefix: 0.16-0.19 with a core kept busy, since
            // the literal search skips along the automaton's chains); dense members
            // of D do not, so they have a floor of their own and the target is
            // reported. Dense members of D go through the dense path
            // (`core/src/strict/dense.rs`): with its block kernel (third round,
            // BENCHMARKS.md) and the matcher's squeeze, strict strip measures
            // 0.118–0.171 and strict sanitize 0.112–0.149 on the loaded machine
            // (AVX-512), with a core kept busy too, and 0.090–0.099 both with the AVX2
            // kernel, so the floors sit under half of the lowest; portable (the
            // scalar path, a `portable-only` build) measured 0.062, floor 1/100. The
            // other portable floors stay 0 (reported): measured on AVX2 only.
            // Sanitize's literal prefix is the exception: at load 5-6 on the two cores
            // (helpers benchmarking beside the test command) it measured 0.112-0.137,
            // and its floor at the target failed a test run at 0.124. Since the literal
            // search remembers where a pattern may restart in a chain (BENCHMARKS.md,
            // "Strict over hostile text, last round") 0.175-0.240 at load 3-5, with a
            // core kept busy too; a floor is for regressions, so it sits under half of
            // the lowest and the target stays reported. The scalar search does not
            // depend on the vector backend.
            let floor = match (op, kind) {
                (StrictSanitize, HostileLiteralPrefix) => 1.0 / 12.0,
                (_, HostileMarkerPrefix | HostileLiteralPrefix) => 1.0 / 8.0,
                _ => 1.0 / 25.0,
            };
            let portable = if kind == HostileInvisible {
                1.0 / 100.0
            } else {
                0.0
            };
            let label = format!("{} {} / {} clean", op.name(), kind.name(), op.name());
            check(
                &mut bench,
                &label,
                s(op, kind),
                s(op, Clean),
                bar(floor, portable, 1.0 / 8.0),
            );
        }
    }
    for op in [Scan, Strip, Sanitize, Fence, Frontmatter] {
        for kind in Kind::HOSTILE {
            // Two pairs cannot fail, so they are printed for context, not gated: the
            // scan returns at the first hit of hostile-invisible text, and the gate
            // parses only the rule's fixed frontmatter block, whatever the body.
            let context = op == Frontmatter || (op == Scan && kind == HostileInvisible);
            // The portable dense drops (one code point per step) cannot keep up with
            // strip's memcpy-speed clean path: their floor guards the tables, and
            // the 1/8 target is what aarch64 NEON would have to meet.
            let portable = match (op, kind) {
                (Strip, HostileInvisible) => 0.03,
                (Sanitize, HostileInvisible) => 0.06,
                _ => 0.08,
            };
            let label = format!(
                "{} {} / {} clean{}",
                op.name(),
                kind.name(),
                op.name(),
                if context { " (context)" } else { "" }
            );
            let bar = if context {
                bar(0.0, 0.0, 0.0)
            } else {
                bar(0.08, portable, 1.0 / 8.0)
            };
            check(&mut bench, &label, s(op, kind), s(op, Clean), bar);
        }
    }
    if report {
        println!("gate: report only");
        ExitCode::SUCCESS
    } else if failed {
        println!("gate: FAILED (a floor is broken on every attempt)");
        ExitCode::FAILURE
    } else {
        println!("gate: ok");
        ExitCode::SUCCESS
    }
}
