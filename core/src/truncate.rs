//! Cutting text to a byte budget on a code-point boundary (SPEC §3).

/// The result of [`truncate_to_bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Truncation<'a> {
    /// The longest prefix of whole code points within the budget.
    pub text: &'a str,
    /// Whether anything was cut.
    pub truncated: bool,
    /// The UTF-8 length of the original text.
    pub bytes: usize,
}

/// The longest prefix of `text` made of whole code points whose UTF-8 length is at
/// most `max_bytes`, whether it was cut, and the original length.
pub fn truncate_to_bytes(text: &str, max_bytes: usize) -> Truncation<'_> {
    let end = floor_char_boundary(text, max_bytes);
    Truncation {
        text: text.get(..end).unwrap_or_default(),
        truncated: end < text.len(),
        bytes: text.len(),
    }
}

/// The largest code-point boundary of `text` that is at most `index`.
pub(crate) fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    // A boundary is at most three bytes back.
    (index.saturating_sub(3)..=index)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_code_point_boundary() {
        let t = truncate_to_bytes("€€€", 8);
        assert_eq!((t.text, t.truncated, t.bytes), ("€€", true, 9));
        assert!(!truncate_to_bytes("€€€", 9).truncated);
        assert_eq!(truncate_to_bytes("abc", 0).text, "");
        assert_eq!(
            truncate_to_bytes("", 0),
            Truncation {
                text: "",
                truncated: false,
                bytes: 0
            }
        );
    }
}
