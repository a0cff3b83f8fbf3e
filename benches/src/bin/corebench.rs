//! Core's side of the C ABI bench (`benches/cabi.sh`): one operation on fresh
//! 64 KiB pieces of a file, timed in thread CPU time, as `benches/cabi.c` times the
//! exported functions: `corebench OP FILE SECONDS` prints GB/s.
#![allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::hint::black_box;

use airlock_benches::ThreadClock;

const PIECE: usize = 64 << 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [op, file, secs] = args.as_slice() else {
        panic!("usage: corebench sanitize|strip|fence FILE SECONDS");
    };
    let bytes = std::fs::read(file).expect("FILE");
    let secs: f64 = secs.parse().expect("SECONDS");
    let mut out = vec![0u8; airlock_core::worst_case_len(PIECE, PIECE)];
    let clock = ThreadClock::new();
    let start = clock.now();
    let (mut done, mut at) = (0usize, 0usize);
    while clock.since(start) < secs {
        for _ in 0..16 {
            if at + PIECE > bytes.len() {
                at = 0;
            }
            // Whole code points, as the C side cuts them.
            let mut end = at + PIECE;
            while end > at && (bytes[end] & 0xC0) == 0x80 {
                end -= 1;
            }
            let piece = &bytes[at..end];
            // The exported functions validate their input: so does core's side.
            let text = airlock_core::utf8::validate(piece).expect("UTF-8");
            let n = match op.as_str() {
                "sanitize" => airlock_core::sanitize_prose(text, "insight", PIECE, &mut out)
                    .map_or(0, |p| p.text.len()),
                "strip" => airlock_core::strip_into(text, &mut out).map_or(0, str::len),
                "fence" => airlock_core::fence_token(piece).as_bytes()[0] as usize,
                _ => panic!("unknown op {op}"),
            };
            black_box(n);
            done += piece.len();
            at = end;
        }
    }
    println!("{:.3}", done as f64 / clock.since(start) / 1e9);
}
