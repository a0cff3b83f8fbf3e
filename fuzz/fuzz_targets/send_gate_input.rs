//! The send gate's input decoder: anything that is not a well-formed tool call within
//! the limits blocks; what passes is exactly what the JSON says.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(name) = airlock_hooks::decoders::send_gate_tool_call(data) else {
        return;
    };
    let call: Value = serde_json::from_slice(data).expect("accepted unparsable input");
    assert_eq!(call["tool_name"].as_str(), Some(name.as_str()));
    assert!(
        call["tool_input"].is_object(),
        "accepted without an object tool_input"
    );
    assert!(data.len() <= 8 * 1024 * 1024);
});
