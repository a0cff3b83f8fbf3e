//! Step 4: every string of the outgoing call, scanned for banned wording,
//! hidden code points and bodies that cannot be scanned.
//!
//! Every key and every string of `tool_input`, at any depth (Slack `blocks`
//! and `attachments`, an `html` field, a recipient), is scanned raw and
//! rendered (`render`). The work is linear in the input: each string is
//! walked a fixed number of times, a hidden code point costs a counter
//! increment, and only the first [`HIDDEN_LISTED`] are described (with a
//! place string cut to a fixed length), so memory is bounded by a small
//! multiple of the input whatever it holds.

use serde_json::{Map, Value};

use super::config::{Config, Rule};
use super::decode::{Decoded, base64_body, encoded_words, mime};
use super::fold::{folded, original_span};
use super::hidden::for_each_hidden;
use super::render::{Concealed, render};

/// How many hidden code points a report describes; the rest are counted.
pub(crate) const HIDDEN_LISTED: usize = 8;
/// How many code points of a key a place shows.
const PLACE_KEY_CHARS: usize = 40;
/// How many code points of a match a hit shows.
const MATCH_CHARS: usize = 80;
/// A string this long made only of base64 characters is an encoded body.
const ENCODED_MIN_BYTES: usize = 200;
/// Keys by which an object declares the media type of its data.
const DECLARED_TYPE_KEYS: [&str; 6] = [
    "mimeType",
    "mime_type",
    "contentType",
    "content_type",
    "Content-Type",
    "type",
];

/// A pattern that matched: its name and (the start of) the text it matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) name: String,
    pub(crate) matched: String,
}

/// A dangerous code point found in outgoing text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hidden {
    pub(crate) code_point: char,
    /// Where: `tool_input.<path>`, `the key tool_input.<path>`, `… (rendered)`.
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

/// What the scan found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ScanReport {
    /// At most one hit per block rule.
    pub(crate) blocks: Vec<Hit>,
    /// At most one hit per warn rule.
    pub(crate) warnings: Vec<Hit>,
    /// The first [`HIDDEN_LISTED`] hidden code points.
    pub(crate) hidden: Vec<Hidden>,
    /// How many hidden code points there are in all.
    pub(crate) hidden_total: usize,
    /// Places of bodies that cannot be scanned (encoded MIME `raw`, base64).
    pub(crate) unscannable: Vec<String>,
    /// Text of the markup that the reader does not see, or sees reordered:
    /// each a place and what is concealed there.
    pub(crate) concealed: Vec<String>,
    /// Some string states something about now (a currency-claim pattern).
    pub(crate) currency: bool,
}

impl ScanReport {
    pub(crate) fn blocked(&self) -> bool {
        !self.blocks.is_empty()
            || self.hidden_total > 0
            || !self.unscannable.is_empty()
            || !self.concealed.is_empty()
    }
}

/// One step of the path to a value.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

struct Scanner<'c> {
    config: &'c Config,
    report: ScanReport,
    /// The hook's scan: once a hidden code point is found the call blocks on
    /// it, so only the counting goes on. `guard scan` names every hit.
    stop_at_hidden: bool,
}

/// Scans every key and string of `tool_input`.
pub(crate) fn scan_input(input: &Map<String, Value>, config: &Config) -> ScanReport {
    let mut scanner = Scanner {
        config,
        report: ScanReport::default(),
        stop_at_hidden: true,
    };
    let mut path = Vec::new();
    scanner.object(&mut path, input);
    scanner.report
}

/// Scans one text (`airlock guard scan`, the doctor's controls).
pub(crate) fn scan_text(text: &str, place: &str, config: &Config) -> ScanReport {
    let mut scanner = Scanner {
        config,
        report: ScanReport::default(),
        stop_at_hidden: false,
    };
    scanner.string(text, &|| place.to_owned());
    scanner.report
}

impl<'c> Scanner<'c> {
    fn object<'a>(&mut self, path: &mut Vec<Step<'a>>, map: &'a Map<String, Value>) {
        // The media type the object declares for its data (a Gmail part's
        // `mimeType`, an attachment's `content_type`).
        let declared = DECLARED_TYPE_KEYS
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_str))
            .unwrap_or_default();
        for (key, value) in map {
            path.push(Step::Key(key));
            self.string(key, &|| format!("the key {}", place(path)));
            if let Value::String(s) = value
                && key.eq_ignore_ascii_case("raw")
                && !s.trim().is_empty()
            {
                // Gmail's `raw`: a whole RFC 822 message in base64url.
                let decoded = base64_body(s, "message/rfc822");
                self.decoded(path, decoded);
                self.string(s, &|| place(path));
            } else {
                self.value(path, value, declared);
            }
            path.pop();
        }
    }

    fn value<'a>(&mut self, path: &mut Vec<Step<'a>>, value: &'a Value, declared: &str) {
        match value {
            Value::String(s) => {
                if is_encoded(s) {
                    let decoded = base64_body(s, declared);
                    self.decoded(path, decoded);
                } else if let Some(decoded) = mime(s) {
                    self.decoded(path, decoded);
                }
                match encoded_words(s) {
                    Ok(Some(text)) => self.string(&text, &|| format!("{} (decoded)", place(path))),
                    Ok(None) => {}
                    Err(why) => self.unscannable(format!("{} ({why})", place(path))),
                }
                self.string(s, &|| place(path));
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    self.value(path, item, "");
                    path.pop();
                }
            }
            Value::Object(map) => self.object(path, map),
            Value::Number(_) | Value::Bool(_) | Value::Null => {}
        }
    }

    /// Scans what a string decodes to, and notes what of it cannot be read.
    fn decoded(&mut self, path: &[Step<'_>], decoded: Decoded) {
        for (text, what) in &decoded.texts {
            self.string(text, &|| format!("{} ({what})", place(path)));
        }
        if let Some(why) = decoded.unscannable {
            self.unscannable(format!("{} ({why})", place(path)));
        }
    }

    fn unscannable(&mut self, place: String) {
        if self.report.unscannable.len() < HIDDEN_LISTED {
            self.report.unscannable.push(place);
        }
    }

    /// Hidden code points of the raw text, then of the rendered text when
    /// no hidden code point was found so far; then the patterns over both
    /// forms. Once one is found only the counting goes on.
    fn string(&mut self, text: &str, place: &dyn Fn() -> String) {
        let before = self.report.hidden_total;
        self.hidden(text, place, false);
        if self.stop_at_hidden && self.report.hidden_total > 0 {
            // The call blocks on what was found, and the block names the
            // hidden code points only: the rest of the work (a rendered copy,
            // the patterns) cannot change the verdict, so it is not done.
            return;
        }
        let rendered = render(text);
        if let Some(r) = &rendered {
            self.concealed(&r.concealed, place);
        }
        let rendered = rendered.map(|r| r.text);
        if let Some(rendered) = &rendered
            && self.report.hidden_total == before
        {
            self.hidden(rendered, place, true);
        }
        // The reader's text is the rendered one when there is one; its
        // folded view is what a look-alike spelling of it matches.
        let seen = rendered.as_deref().unwrap_or(text);
        let folded_view = folded(seen);
        let forms = [
            Some(Form {
                text,
                folded_of: None,
            }),
            rendered.as_deref().map(|r| Form {
                text: r,
                folded_of: None,
            }),
            folded_view.as_deref().map(|f| Form {
                text: f,
                folded_of: Some(seen),
            }),
        ];
        hits(&self.config.block, &forms, &mut self.report.blocks);
        hits(&self.config.warn, &forms, &mut self.report.warnings);
        if let Some(lane) = &self.config.currency
            && !self.report.currency
        {
            self.report.currency = lane
                .patterns
                .iter()
                .any(|p| forms.iter().flatten().any(|f| p.is_match(f.text)));
        }
    }

    fn concealed(&mut self, concealed: &Concealed, place: &dyn Fn() -> String) {
        let report = &mut self.report;
        if let Some((run, why)) = &concealed.hidden
            && report.concealed.len() < HIDDEN_LISTED
        {
            report
                .concealed
                .push(format!("hidden text in {} ({why}): {run:?}", place()));
        }
        if concealed.unresolved_sheet && report.concealed.len() < HIDDEN_LISTED {
            report.concealed.push(format!(
                "the style sheets of {} cost more to resolve than the gate allows, so what they hide is unknown",
                place()
            ));
        }
        if let Some(shown) = &concealed.reordered
            && report.concealed.len() < HIDDEN_LISTED
        {
            report.concealed.push(format!(
                "a bidi override in the markup of {} reverses letters (the reader sees {shown:?})",
                place()
            ));
        }
    }

    fn hidden(&mut self, text: &str, place: &dyn Fn() -> String, rendered: bool) {
        let report = &mut self.report;
        // The place is built once per string, and only if a hit is listed.
        let mut shown: Option<String> = None;
        for_each_hidden(text, |at| {
            report.hidden_total = report.hidden_total.saturating_add(1);
            if report.hidden.len() < HIDDEN_LISTED {
                let place = shown
                    .get_or_insert_with(|| {
                        if rendered {
                            format!("{} (rendered)", place())
                        } else {
                            place()
                        }
                    })
                    .clone();
                report.hidden.push(Hidden {
                    code_point: at.code_point,
                    place,
                    byte_offset: at.byte_offset,
                    char_index: at.char_index,
                });
            }
        });
    }
}

/// `tool_input.a.b[2]`, each key cut to [`PLACE_KEY_CHARS`] code points and
/// quoted when it is not a plain word.
fn place(path: &[Step<'_>]) -> String {
    let mut out = String::from("tool_input");
    for step in path {
        match step {
            Step::Key(k) => {
                out.push('.');
                let plain = !k.is_empty()
                    && k.chars().count() <= PLACE_KEY_CHARS
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if plain {
                    out.push_str(k);
                } else {
                    let cut: String = k.chars().take(PLACE_KEY_CHARS).collect();
                    let more = if k.chars().nth(PLACE_KEY_CHARS).is_some() {
                        "…"
                    } else {
                        ""
                    };
                    out.push_str(&format!("{:?}{more}", cut));
                }
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A long run of base64 (or base64url) characters: an encoded body whose
/// text the gate must decode before it can vouch for it. Line breaks may
/// split it (RFC 2045); spaces and tabs too, as a pasted or hostile blob has
/// them, but then at least a quarter of its letters and digits must be
/// upper case or digits (random base64 has more than half, prose a few in a
/// hundred), so a long line of unpunctuated chat is not taken for one.
fn is_encoded(s: &str) -> bool {
    let mut len = 0usize;
    let mut loud = 0usize;
    let mut spaced = false;
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'0'..=b'9' => {
                len = len.saturating_add(1);
                loud = loud.saturating_add(1);
            }
            b'a'..=b'z' | b'+' | b'/' | b'-' | b'_' | b'=' => len = len.saturating_add(1),
            b'\r' | b'\n' => {}
            b' ' | b'\t' => spaced = true,
            _ => return false,
        }
    }
    len >= ENCODED_MIN_BYTES && (!spaced || loud.saturating_mul(4) >= len)
}

/// One form of a string that patterns run on.
struct Form<'t> {
    text: &'t str,
    /// For the folded view: the text it folds, whose spelling a hit shows.
    folded_of: Option<&'t str>,
}

/// Adds the first match of each rule not hit yet, in any form, in the
/// reader's spelling.
fn hits(rules: &[Rule], forms: &[Option<Form<'_>>], out: &mut Vec<Hit>) {
    for rule in rules {
        if out.iter().any(|h| h.name == rule.name) {
            continue;
        }
        let found = forms.iter().flatten().find_map(|form| {
            let m = rule.regex.find(form.text)?;
            Some(match form.folded_of {
                Some(original) => original_span(original, m.start, m.end),
                None => form.text.get(m).unwrap_or_default(),
            })
        });
        if let Some(matched) = found {
            out.push(Hit {
                name: rule.name.clone(),
                matched: matched.chars().take(MATCH_CHARS).collect(),
            });
        }
    }
}

/// The outgoing text fields: each configured candidate present as a
/// non-blank string, in configuration order.
///
/// # Errors
/// A candidate present with a type other than string or null: the gate
/// cannot tell what it would send, so it refuses rather than guess.
pub(crate) fn outgoing_fields<'a>(
    input: &'a Map<String, Value>,
    candidates: &'a [String],
) -> Result<Vec<&'a str>, String> {
    let mut fields = Vec::new();
    for key in candidates {
        match input.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                if !s.trim().is_empty() {
                    fields.push(key.as_str());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        super::super::config::parse_config(
            r#"{"gated_tool_patterns":["send"],"exempt_tool_patterns":[],
            "block_patterns":[{"name":"sorry","regex":"\\bsorry\\b[^.]{0,10}\\bdelay"}],
            "warn_patterns":[{"name":"w","regex":"circling back"}],
            "text_field_candidates":["body"],"ledger_max_age_minutes":45}"#,
            None,
        )
        .unwrap()
    }

    fn input(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn nested_strings_and_keys_are_scanned() {
        let c = config();
        let r = scan_input(
            &input(serde_json::json!({"blocks": [{"text": {"text": "so sorry for the delay"}}]})),
            &c,
        );
        assert_eq!(r.blocks.len(), 1);
        let r = scan_input(&input(serde_json::json!({"a": {"b\u{200B}": 1}})), &c);
        assert_eq!(r.hidden_total, 1);
        assert_eq!(r.hidden[0].place, "the key tool_input.a.\"b\\u{200b}\"");
        let r = scan_input(
            &input(serde_json::json!({"attachments": [1, {"html": "s&#111rry f&#111r delay"}]})),
            &c,
        );
        assert_eq!(r.blocks.len(), 1, "{r:?}");
    }

    #[test]
    fn hidden_code_points_are_counted_not_copied() {
        let c = config();
        let key = "\u{200B}".repeat(10_000);
        let r = scan_input(&input(serde_json::json!({ key.clone(): key })), &c);
        assert_eq!(r.hidden_total, 20_000);
        assert_eq!(r.hidden.len(), HIDDEN_LISTED);
        assert!(r.hidden[0].place.len() < 512, "{}", r.hidden[0].place);
    }

    #[test]
    fn rendered_form_reports_what_the_raw_form_hides() {
        let c = config();
        let r = scan_text("x&#x202E y", "t", &c);
        assert_eq!(r.hidden_total, 1);
        assert_eq!(r.hidden[0].place, "t (rendered)");
        let r = scan_text("x\u{202E}&#x202E;", "t", &c);
        assert_eq!(r.hidden_total, 1);
        // Once hidden code points are found, only counting goes on.
        let r = scan_input(
            &input(serde_json::json!({"a": "\u{200B}", "b": "&#x200B; sorry for the delay"})),
            &c,
        );
        assert_eq!((r.hidden_total, r.blocks.len()), (1, 0));
    }

    #[test]
    fn encoded_bodies_are_decoded_or_unscannable() {
        let c = config();
        // A raw that decodes to text is read ("c29ycnkgZm9yIHRoZSBkZWxheQ" is
        // "sorry for the delay"); one that is not base64 cannot be.
        let r = scan_input(
            &input(serde_json::json!({"raw": "c29ycnkgZm9yIHRoZSBkZWxheQ"})),
            &c,
        );
        assert!(r.unscannable.is_empty(), "{r:?}");
        assert_eq!(r.blocks.len(), 1, "{r:?}");
        let r = scan_input(&input(serde_json::json!({"raw": "TUlNRS1*WZXJzaW9u"})), &c);
        assert_eq!(r.unscannable.len(), 1, "{r:?}");
        assert!(r.unscannable[0].starts_with("tool_input.raw ("), "{r:?}");
        let b64 = "QUJD".repeat(60);
        let r = scan_input(
            &input(serde_json::json!({"parts": [{"data": b64.clone()}]})),
            &c,
        );
        assert_eq!(r.unscannable.len(), 1, "{r:?}");
        assert!(
            r.unscannable[0].starts_with("tool_input.parts[0].data ("),
            "{r:?}"
        );
        // White space inside does not hide it.
        let spaced = "QUJD ".repeat(60);
        let r = scan_input(&input(serde_json::json!({"parts": [{"data": spaced}]})), &c);
        assert_eq!(r.unscannable.len(), 1, "{r:?}");
        // A text part is decoded and scanned.
        let sorry = "c29ycnkgZm9yIHRoZSBkZWxheSAg".to_owned() + &"ICAg".repeat(49) + "IA==";
        let r = scan_input(
            &input(serde_json::json!({"parts": [{"mimeType": "text/plain", "data": sorry}]})),
            &c,
        );
        assert!(r.unscannable.is_empty(), "{r:?}");
        assert_eq!(r.blocks.len(), 1, "{r:?}");
        // Encoded-words and MIME anywhere.
        let r = scan_input(
            &input(serde_json::json!({"subject": "=?utf-8?B?c29ycnkgZm9yIHRoZSBkZWxheQ==?="})),
            &c,
        );
        assert_eq!(r.blocks.len(), 1, "{r:?}");
        let r = scan_input(
            &input(
                serde_json::json!({"body": "Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\nsorry f=\nor the delay"}),
            ),
            &c,
        );
        assert_eq!(r.blocks.len(), 1, "{r:?}");
        let chat =
            "thanks for the update let me check with the team and get back to you ".repeat(4);
        assert!(!is_encoded(&chat));
        let r = scan_input(&input(serde_json::json!({"body": "short words only"})), &c);
        assert!(r.unscannable.is_empty());
    }

    #[test]
    fn look_alike_spellings_match_and_are_shown_as_written() {
        let c = config();
        for (text, shown) in [
            ("s\u{43E}rry for the delay", "s\u{43E}rry for the delay"),
            (
                "\u{FF53}orry for the d\u{E9}lay",
                "\u{FF53}orry for the d\u{E9}lay",
            ),
            ("so\u{301}rry for the delay!", "so\u{301}rry for the delay"),
            (
                "<p>s&#x43E;rry for the delay</p>",
                "s\u{43E}rry for the delay",
            ),
        ] {
            let r = scan_text(text, "t", &c);
            assert_eq!(r.blocks.len(), 1, "{text:?}: {r:?}");
            assert_eq!(r.blocks[0].matched, shown, "{text:?}");
        }
        assert!(scan_text("s\u{43E}rry, no", "t", &c).blocks.is_empty());
    }

    #[test]
    fn one_hit_per_rule() {
        let c = config();
        let r = scan_input(
            &input(serde_json::json!({"a": "sorry, delay", "b": "sorry for delay, circling back"})),
            &c,
        );
        assert_eq!(r.blocks.len(), 1);
        assert_eq!(r.warnings.len(), 1);
    }
}
