//! Writes the benches' deterministic text to a file, for the whole-process benches
//! (`benches/cli.py`): `gen KIND MIB FILE` (kinds as in `airlock_benches::Kind`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;

use airlock_benches::{Kind, generate};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, mib, file] = args.as_slice() else {
        panic!("usage: gen KIND MIB FILE");
    };
    let kind = Kind::named(kind).expect("a kind of airlock_benches::Kind");
    let mib: usize = mib.parse().expect("a size in MiB");
    let mut out = std::io::BufWriter::new(std::fs::File::create(file).expect("FILE"));
    // 16 MiB pieces with different seeds: every piece is fresh text.
    let piece = 16usize << 20;
    let mut left = mib << 20;
    let mut seed = 1u64;
    while left > 0 {
        let text = generate(kind, piece.min(left), seed);
        let end = text.len().min(left);
        let mut cut = end;
        while !text.is_char_boundary(cut) {
            cut = cut.saturating_sub(1);
        }
        out.write_all(text.get(..cut).unwrap_or_default().as_bytes())
            .expect("write");
        left = left.saturating_sub(cut.max(1));
        seed = seed.wrapping_add(1);
    }
    out.flush().expect("flush");
}
