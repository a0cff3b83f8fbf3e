//! A fence token never occurs in its payload and is 8 or 64 lower-case hex characters.
#![no_main]

use airlock_core::fence_token;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let token = fence_token(data);
    let t = token.as_bytes();
    assert!(t.len() == 8 || t.len() == 64);
    assert!(
        t.iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
    );
    assert!(
        !data.windows(t.len()).any(|w| w == t),
        "token occurs in payload"
    );
});
