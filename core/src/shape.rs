//! The machine-token shapes (SPEC §3): a leaf, so the rejection type can name a
//! shape without depending on the checks that use it.

/// The four machine-token shapes of the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `host-class`: `^[A-Za-z0-9._-]+$`.
    HostClass,
    /// `learning-key`: `^[a-z0-9/-]+$`.
    LearningKey,
    /// `expires-at`: `^\d{4}-\d{2}-\d{2}$`, ASCII digits, nothing after.
    ExpiresAt,
    /// `learning-id`, `source-session`: `^[A-Za-z0-9._:-]+$`.
    Provenance,
}

impl Shape {
    /// Every shape, in declaration order.
    pub const ALL: [Shape; 4] = [
        Shape::HostClass,
        Shape::LearningKey,
        Shape::ExpiresAt,
        Shape::Provenance,
    ];

    /// The pattern source exactly as the reference spells it in its messages.
    pub const fn pattern(self) -> &'static str {
        match self {
            Shape::HostClass => "^[A-Za-z0-9._-]+$",
            Shape::LearningKey => "^[a-z0-9/-]+$",
            Shape::ExpiresAt => "^\\d{4}-\\d{2}-\\d{2}$",
            Shape::Provenance => "^[A-Za-z0-9._:-]+$",
        }
    }

    /// The shape whose pattern source is `source`, if any.
    pub fn from_pattern(source: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.pattern() == source)
    }

    /// Whether a non-empty `value` has this shape.
    pub fn matches(self, value: &str) -> bool {
        let bytes = value.as_bytes();
        match self {
            Shape::HostClass => all_non_empty(bytes, |b| {
                b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
            }),
            Shape::LearningKey => all_non_empty(bytes, |b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'/' | b'-')
            }),
            Shape::Provenance => all_non_empty(bytes, |b| {
                b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-')
            }),
            Shape::ExpiresAt => {
                bytes.len() == 10
                    && bytes.iter().enumerate().all(|(i, &b)| match i {
                        4 | 7 => b == b'-',
                        _ => b.is_ascii_digit(),
                    })
            }
        }
    }
}

fn all_non_empty(bytes: &[u8], allowed: impl Fn(u8) -> bool) -> bool {
    !bytes.is_empty() && bytes.iter().all(|&b| allowed(b))
}
