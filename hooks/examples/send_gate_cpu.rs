//! The send gate's CPU per call, in the calling thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`): on a shared machine wall-clock samples include
//! the time the thread waited for a core. Driven by `scripts/bench-send-gate.sh`,
//! which builds this against two commits and runs them interleaved.
//!
//! Usage: `send_gate_cpu CONFIG STATE CALLS FIXTURE...`; prints one line per
//! fixture: its name, then the median and the minimum CPU per call in µs.

use std::path::Path;
use std::process::ExitCode;

/// The calling thread's CPU time in nanoseconds.
fn thread_cpu_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and the clock id is a constant
    // libc defines; clock_gettime writes only into `ts`.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut ts) };
    if rc != 0 {
        return 0;
    }
    u128::from(ts.tv_sec.unsigned_abs())
        .saturating_mul(1_000_000_000)
        .saturating_add(u128::from(ts.tv_nsec.unsigned_abs()))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [config, state, calls, fixtures @ ..] = args.as_slice() else {
        eprintln!("usage: send_gate_cpu CONFIG STATE CALLS FIXTURE...");
        return ExitCode::from(2);
    };
    let Ok(calls) = calls.parse::<usize>() else {
        eprintln!("send_gate_cpu: CALLS {calls:?} is not a number");
        return ExitCode::from(2);
    };
    for fixture in fixtures {
        let input = match std::fs::read(fixture) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("send_gate_cpu: {fixture}: {e}");
                return ExitCode::from(2);
            }
        };
        let mut samples: Vec<u128> = Vec::with_capacity(calls);
        let mut verdict = String::new();
        for _ in 0..calls {
            let start = thread_cpu_ns();
            let out = airlock_hooks::decoders::send_gate_decision(
                &input,
                Path::new(config),
                Path::new(state),
            );
            samples.push(thread_cpu_ns().saturating_sub(start));
            verdict = match out {
                Ok(_) => "pass".to_owned(),
                Err(reason) => reason.chars().take(48).collect(),
            };
        }
        samples.sort_unstable();
        let median = samples.get(samples.len() / 2).copied().unwrap_or_default();
        let min = samples.first().copied().unwrap_or_default();
        let name = Path::new(fixture)
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        println!(
            "{name}\t{:.1}\t{:.1}\t{verdict}",
            median as f64 / 1000.0,
            min as f64 / 1000.0
        );
    }
    ExitCode::SUCCESS
}
