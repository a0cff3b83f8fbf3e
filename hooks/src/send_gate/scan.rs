//! Step 3: the outgoing text, scanned for banned wording and hidden code points.

use serde_json::{Map, Value};

use super::config::{Config, Rule};

/// A pattern that matched: its name and the text it matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) name: String,
    pub(crate) matched: String,
}

/// A dangerous code point found in outgoing text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hidden {
    pub(crate) code_point: char,
    /// Where: `tool_input.<field>` or `tool_input.<field> (rendered)`.
    pub(crate) place: String,
    pub(crate) byte_offset: usize,
    pub(crate) char_index: usize,
}

impl std::fmt::Display for Hidden {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "U+{:04X} in {} at byte {} (code point {})",
            u32::from(self.code_point),
            self.place,
            self.byte_offset,
            self.char_index
        )
    }
}

/// What the scan of one text found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ScanReport {
    pub(crate) blocks: Vec<Hit>,
    pub(crate) warnings: Vec<Hit>,
    pub(crate) hidden: Vec<Hidden>,
}

impl ScanReport {
    pub(crate) fn blocked(&self) -> bool {
        !self.blocks.is_empty() || !self.hidden.is_empty()
    }
}

/// Dangerous invisible (SPEC §2 table) or control (Cc) code point, except
/// TAB, LF and CR, which ordinary messages carry.
fn is_dangerous(c: char) -> bool {
    airlock_core::is_dangerous_invisible(c)
        || (airlock_core::is_control(c) && !matches!(c, '\t' | '\n' | '\r'))
}

/// Every dangerous code point of `text`, placed at `place`.
pub(crate) fn find_hidden(text: &str, place: &str) -> Vec<Hidden> {
    text.char_indices()
        .enumerate()
        .filter(|&(_, (_, c))| is_dangerous(c))
        .map(|(char_index, (byte_offset, code_point))| Hidden {
            code_point,
            place: place.to_owned(),
            byte_offset,
            char_index,
        })
        .collect()
}

/// Every dangerous code point in any key or string of `tool_input`: a
/// bidi override in a recipient or subject misleads as much as one in a body.
pub(crate) fn find_hidden_in_input(input: &Map<String, Value>) -> Vec<Hidden> {
    let mut found = Vec::new();
    walk(&mut found, "tool_input", input);
    found
}

fn walk(found: &mut Vec<Hidden>, path: &str, map: &Map<String, Value>) {
    for (key, value) in map {
        let here = format!("{path}.{key}");
        found.extend(find_hidden(key, &format!("the key {here}")));
        walk_value(found, &here, value);
    }
}

fn walk_value(found: &mut Vec<Hidden>, path: &str, value: &Value) {
    match value {
        Value::String(s) => found.extend(find_hidden(s, path)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk_value(found, &format!("{path}[{i}]"), item);
            }
        }
        Value::Object(map) => walk(found, path, map),
        Value::Number(_) | Value::Bool(_) | Value::Null => {}
    }
}

/// The outgoing text fields: each configured candidate present as a
/// non-blank string, in configuration order.
///
/// # Errors
/// A candidate present with a type other than string or null: the gate
/// cannot scan what it cannot read, so it refuses rather than skip it.
pub(crate) fn outgoing_fields<'a>(
    input: &'a Map<String, Value>,
    candidates: &'a [String],
) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut fields = Vec::new();
    for key in candidates {
        match input.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                if !s.trim().is_empty() {
                    fields.push((key.as_str(), s.as_str()));
                }
            }
            Some(_) => {
                return Err(format!(
                    "tool_input.{key} is not a string, so its text cannot be scanned; send the text as a string"
                ));
            }
        }
    }
    Ok(fields)
}

/// The text as a reader sees it: HTML tags dropped, entities decoded.
/// `sor<b></b>ry` and `sor&shy;ry` both render as words a pattern must see.
pub(crate) fn render(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after = rest.get(c.len_utf8()..).unwrap_or_default();
        if c == '<'
            && let Some(end) = tag_end(after)
        {
            rest = after.get(end..).unwrap_or_default();
            continue;
        }
        if c == '&'
            && let Some((decoded, used)) = entity(after)
        {
            out.extend(decoded);
            rest = after.get(used..).unwrap_or_default();
            continue;
        }
        out.push(c);
        rest = after;
    }
    out
}

/// Byte length through the `>` closing a tag that starts right after `<`,
/// when what follows looks like a tag (`a`, `/a`, `!--`, `?`).
fn tag_end(after: &str) -> Option<usize> {
    let first = after.chars().next()?;
    if !(first.is_ascii_alphabetic() || matches!(first, '/' | '!' | '?')) {
        return None;
    }
    after.find('>').map(|i| i.saturating_add(1))
}

/// Decodes the entity after `&`: the character it stands for (if any) and
/// the bytes used, including `;`.
fn entity(after: &str) -> Option<(Option<char>, usize)> {
    let semi = after.get(..after.len().min(34))?.find(';')?;
    let name = after.get(..semi)?;
    let used = semi.saturating_add(1);
    let decoded = if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse::<u32>().ok()?,
        };
        Some(char::from_u32(code).unwrap_or('\u{FFFD}'))
    } else {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some(' '),
            "rsquo" | "lsquo" => Some('\''),
            "mdash" => Some('\u{2014}'),
            "ndash" => Some('\u{2013}'),
            "hellip" => Some('\u{2026}'),
            // Unknown names (and &shy;) render as nothing a pattern should see.
            _ => None,
        }
    };
    Some((decoded, used))
}

/// Scans one text: patterns over the raw and rendered forms, hidden code
/// points in both (a `&#x202E;` in an HTML body renders as the override).
pub(crate) fn scan_text(text: &str, place: &str, config: &Config) -> ScanReport {
    let rendered = render(text);
    let forms = [text, rendered.as_str()];
    let mut report = ScanReport {
        blocks: hits(&config.block, &forms),
        warnings: hits(&config.warn, &forms),
        hidden: find_hidden(text, place),
    };
    if rendered != text {
        let rendered_place = format!("{place} (rendered)");
        report.hidden.extend(
            find_hidden(&rendered, &rendered_place)
                .into_iter()
                .filter(|h| !is_dangerous_raw(text, h)),
        );
    }
    report
}

/// A hidden code point of the rendered form that the raw form already
/// reported needs no second mention only when it is literally present.
fn is_dangerous_raw(raw: &str, hidden: &Hidden) -> bool {
    raw.contains(hidden.code_point)
}

/// The first match of each rule in any form, one hit per rule.
fn hits(rules: &[Rule], forms: &[&str]) -> Vec<Hit> {
    rules
        .iter()
        .filter_map(|rule| {
            forms
                .iter()
                .find_map(|form| rule.regex.find(form))
                .map(|m| Hit {
                    name: rule.name.clone(),
                    matched: m.as_str().to_owned(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_whitespace_passes_and_hidden_code_points_do_not() {
        for c in ['\t', '\n', '\r', ' ', 'a', '\u{A0}', '\u{200E}', '😀'] {
            assert!(!is_dangerous(c), "{c:?}");
        }
        for c in [
            '\0',
            '\u{1B}',
            '\u{7F}',
            '\u{85}',
            '\u{200B}',
            '\u{202E}',
            '\u{E0041}',
        ] {
            assert!(is_dangerous(c), "{c:?}");
        }
    }

    #[test]
    fn render_drops_tags_and_decodes_entities() {
        assert_eq!(render("<p>sor<b></b>ry</p>"), "sorry");
        assert_eq!(
            render("sor&shy;ry &amp; I&#39;m &#x2014; 1 < 2"),
            "sorry & I'm \u{2014} 1 < 2"
        );
        assert_eq!(render("a &unknown b & c"), "a &unknown b & c");
        assert_eq!(render("<https://x.y|label>"), "");
        assert_eq!(render("x&#x202E;y"), "x\u{202E}y");
    }

    #[test]
    fn hidden_positions_count_bytes_and_code_points() {
        let h = find_hidden("é\u{200B}", "f");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].to_string(), "U+200B in f at byte 2 (code point 1)");
    }
}
