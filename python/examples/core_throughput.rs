//! Core's throughput on the rows the Python bench writes: `sanitize_prose` (or the
//! strip) over every row in a Rust loop on one thread, the baseline `sanitize_batch`
//! is compared with (scripts/bench-python.sh).
//!
//! Usage: core_throughput ROWS_FILE FIELD MAX_BYTES REPEATS OP
//! (ROWS_FILE: each row as a little-endian u32 length and its UTF-8 bytes; OP:
//! `sanitize` or `strip`). Prints `bytes_per_s rows_per_s cpu_bytes_per_s` of the
//! best repeat: wall-clock, and by this thread's CPU time (/proc/thread-self/schedstat,
//! nanoseconds), which other processes on a shared machine do not inflate.
#![allow(
    missing_docs,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::time::Instant;

use airlock_core::{LiteralSet, Profile};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, field, max_bytes, repeats, op] = args.as_slice() else {
        return Err(String::from(
            "usage: core_throughput ROWS_FILE FIELD MAX_BYTES REPEATS OP",
        ));
    };
    let max_bytes: usize = max_bytes.parse().map_err(|e| format!("MAX_BYTES: {e}"))?;
    let repeats: usize = repeats.parse().map_err(|e| format!("REPEATS: {e}"))?;
    let raw = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let mut rows = Vec::new();
    let mut at = 0usize;
    while let Some(len) = raw.get(at..at.saturating_add(4)) {
        let n = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let start = at.saturating_add(4);
        let bytes = raw
            .get(start..start.saturating_add(n))
            .ok_or("a truncated rows file")?;
        rows.push(std::str::from_utf8(bytes).map_err(|e| format!("row {}: {e}", rows.len()))?);
        at = start.saturating_add(n);
    }
    let total: usize = rows.iter().map(|r| r.len()).sum();
    let profile = Profile::Reference;
    let mut out = Vec::new();
    let mut best = f64::INFINITY;
    let mut best_cpu = f64::INFINITY;
    let mut sink = 0usize;
    for _ in 0..repeats {
        let t = Instant::now();
        let cpu = thread_cpu_seconds()?;
        for row in &rows {
            if op == "strip" {
                out.resize(row.len(), 0);
                sink =
                    sink.wrapping_add(profile.strip_into(row, &mut out).map(str::len).unwrap_or(0));
            } else {
                let need = profile.worst_case_len(row.len(), max_bytes);
                out.resize(need, 0);
                sink = sink.wrapping_add(
                    match profile.sanitize_prose_with(
                        row,
                        field,
                        max_bytes,
                        &LiteralSet::DEFAULT,
                        &mut out,
                    ) {
                        Ok(p) => p.text.len(),
                        Err(_) => 1,
                    },
                );
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
        best_cpu = best_cpu.min(thread_cpu_seconds()? - cpu);
    }
    eprintln!("checksum {sink}");
    println!(
        "{} {} {}",
        total as f64 / best,
        rows.len() as f64 / best,
        total as f64 / best_cpu
    );
    Ok(())
}

/// This thread's time on a CPU: the first field of /proc/thread-self/schedstat (ns),
/// the clock Python's `time.thread_time()` reads too (CLOCK_THREAD_CPUTIME_ID).
fn thread_cpu_seconds() -> Result<f64, String> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat")
        .map_err(|e| format!("/proc/thread-self/schedstat: {e}"))?;
    let ns: u64 = stat
        .split_whitespace()
        .next()
        .and_then(|f| f.parse().ok())
        .ok_or_else(|| format!("/proc/thread-self/schedstat: no time in {stat:?}"))?;
    Ok(ns as f64 / 1e9)
}
