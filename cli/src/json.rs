//! JSON written the way JavaScript's `JSON.stringify` writes it: strings through
//! core's exact [`JsonString`], numbers as `Number.prototype.toString` (the hooks
//! crate's layout, which the send gate's digest also uses).

use airlock_core::reject::JsonString;
pub(crate) use airlock_hooks::json::number;

/// `JSON.stringify(text)`.
pub(crate) fn string(text: &str) -> String {
    JsonString::whole(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_like_javascript() {
        assert_eq!(string("a\"\n\u{1}\u{7f}"), "\"a\\\"\\n\\u0001\u{7f}\"");
    }
}
