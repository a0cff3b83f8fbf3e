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

/// Every way `ledger` fails for a message with digest `digest` at `now`;
/// empty when it is valid.
pub(crate) fn validate_ledger(
    ledger: &Value,
    digest: &str,
    config: &Config,
    now: OffsetDateTime,
) -> Vec<String> {
    let Some(ledger) = ledger.as_object() else {
        return vec!["the ledger is not a JSON object".into()];
    };
    let mut fails = Vec::new();
    if let Some(path) = find_placeholder(&Value::Object(ledger.clone()), "") {
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
        Some(Value::Bool(false)) => {}
        _ => fails.push("is_reply must be true or false".into()),
    }
    check_claims(ledger, config, now, &mut fails);
    for flag in [
        "voice_rules_pass",
        "invented_precision_scan",
        "recipient_address_check",
    ] {
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
    now: OffsetDateTime,
    fails: &mut Vec<String>,
) {
    if ledger.get("no_factual_claims") == Some(&Value::Bool(true)) {
        return;
    }
    let Some(claims) = ledger
        .get("claims")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty())
    else {
        fails.push(
            "claims[] must map every factual claim to its source, or set no_factual_claims: true"
                .into(),
        );
        return;
    };
    for (i, c) in claims.iter().enumerate() {
        let (Some(claim), true) = (
            c.get("claim")
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty()),
            non_empty_string(c.get("source")),
        ) else {
            fails.push(format!("claims[{i}] needs a non-empty claim and source"));
            continue;
        };
        let Some(lane) = &config.currency else {
            continue;
        };
        if !lane.patterns.iter().any(|p| p.is_match(claim)) {
            continue;
        }
        let snippet: String = claim.chars().take(60).collect();
        match c.get("read_at").and_then(parse_timestamp) {
            None => fails.push(format!(
                "claims[{i}] states something about now ({snippet:?}) but has no RFC 3339 read_at: re-read the source this run and record when"
            )),
            Some(read) => {
                let age = age_seconds(read, now);
                if age < -FUTURE_TOLERANCE_SECONDS {
                    fails.push(format!("claims[{i}] read_at is in the future"));
                } else if age > lane.max_age_minutes * 60.0 {
                    fails.push(format!(
                        "claims[{i}] rests on a read {:.0} min old (at most {} min for {snippet:?}): re-read the source and refresh read_at",
                        age / 60.0,
                        lane.max_age_minutes
                    ));
                }
            }
        }
    }
}

/// Marks every value of the template that the composer must replace; a
/// ledger still carrying one attests to nothing.
pub(crate) const PLACEHOLDER: &str = "FILL ME";

/// The path of the first string starting with [`PLACEHOLDER`].
fn find_placeholder(value: &Value, path: &str) -> Option<String> {
    match value {
        Value::String(s) if s.starts_with(PLACEHOLDER) => Some(if path.is_empty() {
            "a value".into()
        } else {
            path.to_owned()
        }),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_placeholder(v, &format!("{path}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let here = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            find_placeholder(v, &here)
        }),
        _ => None,
    }
}

/// The skeleton `airlock guard ledger-template` prints.
pub(crate) fn template(now: OffsetDateTime) -> Value {
    json!({
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
    })
}
