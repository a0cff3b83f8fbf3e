//! Every machine-value check: accepted values have the exact shape; messages are exact.
#![no_main]

use airlock_core::{
    Shape, check_machine_token, check_no_control, check_safe_description, check_safe_glob,
    is_control, is_dangerous_invisible,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = std::str::from_utf8(data) else {
        return;
    };
    for shape in Shape::ALL {
        match check_machine_token(value, "f", shape) {
            Ok(v) => {
                assert_eq!(v, value);
                assert!(!value.is_empty() && value.is_ascii());
            }
            Err(r) => assert_eq!(r.message_len(), r.to_string().len()),
        }
    }
    let clean = !value
        .chars()
        .any(|c| is_control(c) || is_dangerous_invisible(c));
    assert_eq!(check_no_control(value, "f").is_ok(), clean);
    if check_safe_description(value).is_ok() {
        assert!(clean && value.len() <= 512);
    }
    if check_safe_glob(value).is_ok() {
        assert!(clean && !value.is_empty() && !value.contains('"'));
    }
});
