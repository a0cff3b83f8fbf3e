//! Runs one operation once over 1 MiB of one kind of text, for instruction counts
//! under `valgrind --tool=callgrind` (see `benches/callgrind.sh`, which subtracts a
//! run with `0` repetitions to leave the operation's own instructions).
//!
//! `instr <op> <kind> <repetitions>` (also for qemu's instruction counts on arm64:
//! `scripts/bench-aarch64-insns.sh`)
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::arithmetic_side_effects
)]

use std::hint::black_box;

use airlock_benches::{Kind, Op, Pool, Scratch};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ops = [
        Op::Memcpy,
        Op::FromUtf8,
        Op::Scan,
        Op::Strip,
        Op::Truncate,
        Op::Sanitize,
        Op::NaiveSanitize,
        Op::StrictStrip,
        Op::StrictSanitize,
    ];
    let arg = |i: usize| args.get(i).map_or("", String::as_str);
    let op = Op::named(arg(0), &ops).unwrap_or(Op::Sanitize);
    let kind = Kind::named(arg(1)).unwrap_or(Kind::Mixed);
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let portable = std::env::var_os("AIRLOCK_FORCE_PORTABLE").is_some_and(|v| v != "0");
    let pool = Pool::with_len(kind, 1 << 20);
    let text = pool.first(1 << 20);
    // Valgrind does not model AVX-512: dense drop regions use AVX2 masks and BMI2
    // packing here.
    let mut scratch = Scratch::on(airlock_benches::backend_for(portable, true));
    // Buffers sized outside the counted part.
    black_box(scratch.run(Op::Memcpy, text));
    let mut acc = 0;
    for _ in 0..reps {
        acc += scratch.run(op, black_box(text));
    }
    println!("{} {} {} {}", op.name(), kind.name(), text.len(), acc);
}
