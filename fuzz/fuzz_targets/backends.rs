//! Fast path equals plain path: strip and sanitize_prose on every backend the CPU
//! runs (`Backend::all`: portable, SSE2, AVX2, AVX-512), each named explicitly, equal
//! a plainly written per-code-point version of the rule (`airlock_core::plain`).
#![no_main]

use airlock_core::prose::sanitize_prose_on;
use airlock_core::strip::strip_into_on;
use airlock_core::{Backend, LiteralSet, WRAPPER_FORGERY_LITERALS, plain, worst_case_len};
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
    for backend in Backend::all() {
        let name = backend.name();
        let mut buf = vec![0u8; text.len()];
        assert_eq!(
            strip_into_on(backend, text, &mut buf).ok(),
            Some(want_strip.as_str()),
            "strip on {name}"
        );
        let mut out = vec![0u8; worst_case_len(text.len(), max)];
        let got = match sanitize_prose_on(backend, text, "insight", max, &LiteralSet::DEFAULT, &mut out) {
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
        assert_eq!(got, want_prose, "sanitize on {name}");
    }
});
