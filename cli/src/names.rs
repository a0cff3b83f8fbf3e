//! Names of the code points `airlock scan` can report: the controls (Cc, by their
//! Unicode name aliases, since Cc code points have no `Name`) and every member of the
//! strict profile's D (which holds SPEC §2's table and the variation selectors): the
//! assigned ones by name, the reserved ones by their code point label
//! (`<reserved-E0080>`, UAX #44 §4.8). The names are generated with the strict
//! tables (`scripts/gen-tables.sh`, from the pinned UCD names list) into
//! [`table`].

use std::borrow::Cow;

mod table;

/// The Unicode name (or control alias) of a reportable code point; other code points
/// get `None`.
pub(crate) fn name(c: char) -> Option<Cow<'static, str>> {
    let cp = u32::from(c);
    match table::NAMES.binary_search_by_key(&cp, |&(t, _)| t) {
        Ok(i) => table::NAMES.get(i).map(|&(_, n)| Cow::Borrowed(n)),
        // Every other member of D is reserved (the test below checks the count).
        Err(_) => {
            airlock_core::strict::in_drop_set(c).then(|| Cow::Owned(format!("<reserved-{cp:04X}>")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_core::{is_control, is_dangerous_invisible};

    #[test]
    fn every_reportable_code_point_has_a_name() {
        let mut reserved = 0;
        for c in '\0'..=char::MAX {
            let reportable = is_control(c)
                || is_dangerous_invisible(c)
                || airlock_core::class::is_variation_selector(c)
                || airlock_core::strict::in_drop_set(c);
            let n = name(c);
            assert_eq!(n.is_some(), reportable, "U+{:04X}", u32::from(c));
            reserved += usize::from(n.is_some_and(|n| n.starts_with("<reserved-")));
        }
        // 3,769 of D's 4,174 code points are reserved in Unicode 18.0 (the generator
        // counts them from the names list); a name missing from the table would show
        // up as one more.
        assert_eq!(reserved, table::RESERVED_IN_D);
        assert_eq!(reserved, 3769);
        assert_eq!(
            table::UNICODE_VERSION,
            airlock_core::strict::UNICODE_VERSION
        );
    }

    #[test]
    fn known_names() {
        assert_eq!(
            name('\u{E0061}').as_deref(),
            Some("TAG LATIN SMALL LETTER A")
        );
        assert_eq!(name('\u{FE0F}').as_deref(), Some("VARIATION SELECTOR-16"));
        assert_eq!(name('\u{E01EF}').as_deref(), Some("VARIATION SELECTOR-256"));
        assert_eq!(name('\u{1B}').as_deref(), Some("ESCAPE"));
        assert_eq!(name('\u{85}').as_deref(), Some("NEXT LINE"));
        assert_eq!(name('\u{200B}').as_deref(), Some("ZERO WIDTH SPACE"));
        assert_eq!(name('\u{200E}').as_deref(), Some("LEFT-TO-RIGHT MARK"));
        assert_eq!(name('\u{E0080}').as_deref(), Some("<reserved-E0080>"));
        assert_eq!(name('\u{2065}').as_deref(), Some("<reserved-2065>"));
        assert_eq!(name('\u{E0000}').as_deref(), Some("<reserved-E0000>"));
        assert_eq!(name('\u{80}').as_deref(), Some("PADDING CHARACTER"));
        assert_eq!(name('\u{A}').as_deref(), Some("LINE FEED"));
        assert_eq!(
            name('\u{1D17A}').as_deref(),
            Some("MUSICAL SYMBOL END PHRASE")
        );
        assert_eq!(name('a'), None);
    }
}
