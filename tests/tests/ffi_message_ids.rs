//! Threading-header hygiene through the C ABI: verdicts and the exact reason text.

use airlock::{airlock_check_message_ids, airlock_status};

fn check(value: &str, multiple: bool) -> Result<(), String> {
    let mut msg = [0u8; 256];
    let mut msg_len = 0usize;
    // SAFETY: every pointer refers to a live local of the stated length.
    let status = unsafe {
        airlock_check_message_ids(
            value.as_ptr(),
            value.len(),
            multiple,
            msg.as_mut_ptr(),
            msg.len(),
            &mut msg_len,
            std::ptr::null_mut(),
        )
    };
    match status {
        airlock_status::Ok => Ok(()),
        airlock_status::Rejected => Err(String::from_utf8(msg[..msg_len].to_vec()).unwrap()),
        other => panic!("unexpected status {other:?}"),
    }
}

#[test]
fn message_ids_through_the_abi_match_core() {
    for (value, multiple) in [
        ("<a@b>", false),
        ("<a@b> <c@d>", true),
        ("&lt;a@b&gt;", false),
        ("a@b>", false),
        ("<a@b", true),
        ("<a@b> <c@d>", false),
        ("<>", true),
        ("", false),
    ] {
        let core =
            airlock_core::header::check_message_ids(value, multiple).map_err(|e| e.to_string());
        assert_eq!(
            check(value, multiple),
            core,
            "{value:?} multiple={multiple}"
        );
    }
    assert!(check("<a@b>", false).is_ok());
    assert!(check("&LT;a@b&GT;", false).unwrap_err().contains("entit"));
}
