//! Step 6: the grounding ledger, checked against the digest and the clock.

use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::config::Config;

/// How far in the future `created_at` may lie: clocks of two processes on
/// one machine disagree by little, a ledger written "for later" by more.
pub(crate) const FUTURE_TOLERANCE_SECONDS: f64 = 120.0;

/// Seconds from `then` to `now` (negative when `then` is in the future).
fn age_seconds(then: OffsetDateTime, now: OffsetDateTime) -> f64 {
    // i128 nanoseconds of two valid moments cannot overflow; the fallback
    // reads as "infinitely old", which fails the check.
    #[allow(
        clippy::cast_precision_loss,
        reason = "sub-second precision is irrelevant here"
    )]
    now.unix_timestamp_nanos()
        .checked_sub(then.unix_timestamp_nanos())
        .map_or(f64::INFINITY, |nanos| nanos as f64 / 1e9)
}

/// Parses an RFC 3339 timestamp (ISO-8601 with a mandatory offset): a time
/// without a zone names no moment, so it is refused rather than guessed.
pub(crate) fn parse_timestamp(value: &Value) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(value.as_str()?, &Rfc3339).ok()
}

pub(crate) fn format_timestamp(moment: OffsetDateTime) -> String {
    moment
        .format(&Rfc3339)
        .unwrap_or_else(|_| moment.unix_timestamp().to_string())
}

fn non_empty_string(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str)
        .is_some_and(|s| !s.trim().is_empty())
}

/// What the call says about the ledger it needs, beyond its digest.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Expect<'a> {
    /// The call's digest: the ledger's `message_sha256` must equal it.
    pub(crate) digest: &'a str,
    /// The call carries threading headers (or is a reply tool): the ledger
    /// must say `is_reply: true`. `None` when the call is not known.
    pub(crate) threaded: Option<bool>,
    /// The outgoing text states something about now (a currency pattern
    /// matched it): some claim must carry a fresh `read_at`.
    pub(crate) currency_text: bool,
    /// The ledger attestation a direct send as the agent needs
    /// (`ragbot_branding_check`), when the branding lane gates this tool.
    pub(crate) branding_field: Option<&'a str>,
}

/// Every way `ledger` fails for a call at `now`; empty when it is valid.
pub(crate) fn validate_ledger(
    ledger: &Value,
    expect: &Expect<'_>,
    config: &Config,
    now: OffsetDateTime,
) -> Vec<String> {
    let Some(ledger) = ledger.as_object() else {
        return vec!["the ledger is not a JSON object".into()];
    };
    let digest = expect.digest;
    let mut fails = Vec::new();
    if let Some(path) = find_placeholder_in(ledger, "") {
        fails.push(format!("{path} still holds a template placeholder ({PLACEHOLDER}…); replace every one with what was actually done"));
    }
    check_created_at(ledger, config.ledger_max_age_minutes, now, &mut fails);
    match ledger.get("message_sha256").and_then(Value::as_str) {
        Some(s) if s == digest => {}
        Some(_) => fails.push(format!(
            "message_sha256 does not match this tool call (digest {digest}): the message, recipient or thread changed after grounding, or the ledger belongs to another message; re-check the final call and rewrite the ledger from `airlock guard sha`"
        )),
        None => fails.push("message_sha256 is missing; take it from `airlock guard sha`".into()),
    }
    match ledger.get("is_reply") {
        Some(Value::Bool(true)) => check_reply_research(ledger, &mut fails),
        Some(Value::Bool(false)) if expect.threaded == Some(true) => fails.push(
            "is_reply is false but the call is a reply (threading headers or a reply tool): read the whole thread, search prior correspondence, and set is_reply: true".into(),
        ),
        Some(Value::Bool(false)) => {}
        _ => fails.push("is_reply must be true or false".into()),
    }
    check_claims(ledger, config, expect.currency_text, now, &mut fails);
    let branding = expect.branding_field;
    for flag in [
        "voice_rules_pass",
        "invented_precision_scan",
        "recipient_address_check",
    ]
    .into_iter()
    .chain(branding)
    {
        if ledger.get(flag) != Some(&Value::Bool(true)) {
            fails.push(format!("{flag} must be exactly true"));
        }
    }
    fails
}

fn check_created_at(
    ledger: &Map<String, Value>,
    window_minutes: f64,
    now: OffsetDateTime,
    fails: &mut Vec<String>,
) {
    let Some(created) = ledger.get("created_at").and_then(parse_timestamp) else {
        fails.push(
            "created_at is missing or not RFC 3339 (for example 2026-09-01T10:00:00Z)".into(),
        );
        return;
    };
    let age = age_seconds(created, now);
    if age < -FUTURE_TOLERANCE_SECONDS {
        fails.push(format!(
            "created_at is {:.0} s in the future (at most {FUTURE_TOLERANCE_SECONDS:.0} s allowed); write it from the current clock",
            -age
        ));
    } else if age > window_minutes * 60.0 {
        fails.push(format!(
            "the ledger is stale ({:.0} min old, at most {window_minutes} min); re-ground the message and rewrite it",
            age / 60.0
        ));
    }
}

fn check_reply_research(ledger: &Map<String, Value>, fails: &mut Vec<String>) {
    let read = ledger
        .get("thread_fully_read")
        .and_then(|t| t.get("source_ids"))
        .and_then(Value::as_array)
        .is_some_and(|ids| ids.iter().any(|id| non_empty_string(Some(id))));
    if !read {
        fails.push(
            "is_reply is true but thread_fully_read.source_ids is empty: read the entire thread, quoted history included, and list the message ids fetched".into(),
        );
    }
    match ledger.get("history_searched").and_then(Value::as_array) {
        Some(searches) if !searches.is_empty() => {
            for (i, s) in searches.iter().enumerate() {
                if !(non_empty_string(s.get("query")) && non_empty_string(s.get("where"))) {
                    fails.push(format!("history_searched[{i}] needs a non-empty query and where"));
                }
            }
        }
        _ => fails.push(
            "is_reply is true but history_searched is empty: search prior correspondence with this recipient and topic and record each query and where it ran".into(),
        ),
    }
}

fn check_claims(
    ledger: &Map<String, Value>,
    config: &Config,
    currency_text: bool,
    now: OffsetDateTime,
    fails: &mut Vec<String>,
) {
    let none_claimed = ledger.get("no_factual_claims") == Some(&Value::Bool(true));
    let claims = ledger
        .get("claims")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if claims.is_empty() && !none_claimed {
        fails.push(
            "claims[] must map every factual claim to its source, or set no_factual_claims: true"
                .into(),
        );
    }
    let mut fresh_read = false;
    // Claims are checked whatever no_factual_claims says: a currency claim
    // listed beside it still needs its read_at.
    for (i, c) in claims.iter().enumerate() {
        let claim = c
            .get("claim")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty());
        let Some(claim) = claim.filter(|_| non_empty_string(c.get("source"))) else {
            if !none_claimed {
                fails.push(format!("claims[{i}] needs a non-empty claim and source"));
            }
            continue;
        };
        let Some(lane) = &config.currency else {
            continue;
        };
        let read = c.get("read_at").and_then(parse_timestamp);
        let read_age = read.map(|r| age_seconds(r, now));
        if read_age.is_some_and(|age| {
            (-FUTURE_TOLERANCE_SECONDS..=lane.max_age_minutes * 60.0).contains(&age)
        }) {
            fresh_read = true;
        }
        if !lane.patterns.iter().any(|p| p.is_match(claim)) {
            continue;
        }
        let snippet: String = claim.chars().take(60).collect();
        match read_age {
            None => fails.push(format!(
                "claims[{i}] states something about now ({snippet:?}) but has no RFC 3339 read_at: re-read the source this run and record when"
            )),
            Some(age) if age < -FUTURE_TOLERANCE_SECONDS => {
                fails.push(format!("claims[{i}] read_at is in the future"));
            }
            Some(age) if age > lane.max_age_minutes * 60.0 => fails.push(format!(
                "claims[{i}] rests on a read {:.0} min old (at most {} min for {snippet:?}): re-read the source and refresh read_at",
                age / 60.0,
                lane.max_age_minutes
            )),
            Some(_) => {}
        }
    }
    if currency_text && !fresh_read {
        fails.push(
            "the message states something about now (a currency_claim_patterns match) but no claim carries a fresh read_at: list that claim in claims[] with its source and the RFC 3339 moment you read it this run (no_factual_claims does not cover it)".into(),
        );
    }
}

/// Marks every value of the template that the composer must replace; a
/// ledger still carrying one attests to nothing.
pub(crate) const PLACEHOLDER: &str = "FILL ME";

/// Whether `s` is a template placeholder: after leading white space and
/// invisibles, `FILL ME` in any case, the space written any way or not at
/// all (`fill-me`, `FILL_ME`, `Fill  Me`), then no further letter (so
/// `Fill measurements` and `Fillmore` are not placeholders).
pub(crate) fn is_placeholder(s: &str) -> bool {
    let blank =
        |c: char| c.is_whitespace() || c == '\u{FEFF}' || airlock_core::is_dangerous_invisible(c);
    let separator = |c: char| blank(c) || c == '_' || c == '-';
    let rest = s.trim_start_matches(blank);
    let Some(rest) = strip_prefix_ignore_case(rest, "fill") else {
        return false;
    };
    let rest = rest.trim_start_matches(separator);
    strip_prefix_ignore_case(rest, "me")
        .is_some_and(|after| !after.starts_with(char::is_alphanumeric))
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| s.get(prefix.len()..))
        .flatten()
}

/// The path of the first placeholder string, keys included.
fn find_placeholder_in(map: &Map<String, Value>, path: &str) -> Option<String> {
    map.iter().find_map(|(k, v)| {
        let here = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        if is_placeholder(k) {
            return Some(format!("the key {here}"));
        }
        find_placeholder(v, &here)
    })
}

fn find_placeholder(value: &Value, path: &str) -> Option<String> {
    match value {
        Value::String(s) if is_placeholder(s) => Some(if path.is_empty() {
            "a value".into()
        } else {
            path.to_owned()
        }),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_placeholder(v, &format!("{path}[{i}]"))),
        Value::Object(map) => find_placeholder_in(map, path),
        _ => None,
    }
}

/// The skeleton `airlock guard ledger-template` prints.
pub(crate) fn template(now: OffsetDateTime, branding_field: Option<&str>) -> Value {
    let mut t = json!({
        "created_at": format_timestamp(now),
        "message_sha256": "FILL ME: 64 hex digits from `airlock guard sha` on the exact tool call",
        "is_reply": true,
        "thread_fully_read": {"how": "FILL ME: how the thread was fetched", "source_ids": ["FILL ME: a message id actually read"]},
        "history_searched": [{"query": "FILL ME: the query", "where": "FILL ME: mailbox or transcript store", "results": "FILL ME: what came back"}],
        "claims": [{"claim": "FILL ME: a factual claim in the text", "source": "FILL ME: where it comes from", "read_at": "FILL ME: RFC 3339 moment of the read, for claims about now"}],
        "no_factual_claims": false,
        "voice_rules_pass": false,
        "invented_precision_scan": false,
        "recipient_address_check": false
    });
    if let (Some(field), Some(map)) = (branding_field, t.as_object_mut()) {
        map.insert(field.to_owned(), Value::Bool(false));
    }
    t
}
