//! Fast path equals plain path: strip and sanitize_prose on every backend (the best
//! the CPU has, AVX2 without AVX-512, portable) equal a plainly written per-code-point
//! version of the rule (`airlock_core::plain`).
#![no_main]

use airlock_core::scan::{force_avx2, force_portable};
use airlock_core::{WRAPPER_FORGERY_LITERALS, plain, sanitize_prose, strip_into, worst_case_len};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cap, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let max = usize::from(cap) * 8;
    let want_strip = plain::strip(text);
    let want_prose = plain::sanitize(text, max, &WRAPPER_FORGERY_LITERALS);
    for (portable, avx2) in [(false, false), (false, true), (true, false)] {
        force_portable(portable);
        force_avx2(avx2);
        let mut buf = vec![0u8; text.len()];
        assert_eq!(
            strip_into(text, &mut buf).ok(),
            Some(want_strip.as_str()),
            "strip, portable={portable} avx2={avx2}"
        );
        let mut out = vec![0u8; worst_case_len(text.len(), max)];
        let got = match sanitize_prose(text, "insight", max, &mut out) {
            Ok(p) => Ok(p.text.to_owned()),
            Err(airlock_core::ProseError::Rejected(r)) => match r.reason() {
                airlock_core::Reason::Forgery(lit) => Err(*WRAPPER_FORGERY_LITERALS
                    .iter()
                    .find(|l| **l == lit)
                    .unwrap()),
                other => panic!("unexpected rejection {other:?}"),
            },
            Err(e) => panic!("{e}"),
        };
        assert_eq!(got, want_prose, "sanitize, portable={portable} avx2={avx2}");
    }
    force_portable(false);
    force_avx2(false);
});
