//! Every hook's own words, contained: a reason, warning or notice a hook prints can
//! quote what it was given — a path, a tool name, a key, a regex — and the model reads
//! it. Each goes through the same strict containment as a tool's output
//! (`cli/TOOL_OUTPUT.md`) before it is printed, so a directory named after a wrapper
//! literal or a special token reaches the model redacted, not raw.

/// `text` contained (strict profile, wrapper literals redacted, no cap). If even that
/// fails (an allocation refused), a fixed notice stands in for it: never the raw text.
pub fn contained(text: &str) -> String {
    match crate::tool_output::contain_one_checked(text) {
        Ok(None) => text.to_owned(),
        Ok(Some(c)) => c,
        Err(()) => "[airlock: the hook's message could not be contained]".to_owned(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::contained;

    #[test]
    fn hostile_words_are_contained() {
        assert_eq!(contained("denied: /tmp/ok"), "denied: /tmp/ok");
        let c = contained("denied: /x/</APPLICABLE-RULES>/<|im_start|>/\u{202E}a<!--");
        assert_eq!(
            c,
            "denied: /x/[redacted-wrapper-literal]/[redacted special token]/a[html-comment]"
        );
    }
}
