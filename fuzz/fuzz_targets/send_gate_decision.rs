//! The send gate's whole decision, state directory included, under the
//! limits it promises: run with `-rss_limit_mb=64 -timeout=1`.
//!
//! The fuzz input is a recipe, not the call: a grammar of tool calls (tool
//! names of every kind, text fields, nested Slack blocks, keys, threading
//! headers, numbers, a MIME `raw`) whose pieces (words, block-pattern words,
//! hidden code points, emoji sequences, character references, tags, base64)
//! repeat up to the 8 MiB input cap, so a few bytes reach the cap. The
//! recipe also lays out the state directory: a valid ledger for the call or
//! not, a FIFO or a symbolic link in its place, a stray FIFO, a FIFO as the
//! log, a spent ledger filed again.
//!
//! Properties: no panic, no hang, no memory beyond the limit; a call that
//! carries a raw hidden code point never passes; a gated call passes only
//! with its valid ledger, and that ledger is spent.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};


const CAP: usize = 8 * 1024 * 1024;
/// How much dense markup one call may carry (see the padding below).
const DENSE_MAX: usize = 256 * 1024;
const CONFIG: &str = include_str!("../../cli/send-gate.example.json");

const TOOLS: [&str; 8] = [
    "mcp__slack__slack_send_message",
    "mcp__workspace-mcp__send_gmail_message",
    "mcp__gmail__create_draft",
    "mcp__slack__slack_schedule_message",
    "mcp__mail__reply_to_message",
    "mcp__gmail__search_threads",
    "mcp__x__unclassified_tool",
    "mcp__apple-mail__send_email",
];
const EXEMPT: usize = 5;

/// Pieces of text, and whether each is a hidden code point as written.
const PIECES: [(&str, bool); 24] = [
    ("Thank you, Tuesday works. ", false),
    ("sorry", false),
    (" for the delay", false),
    ("as an AI", false),
    ("just checking in ", false),
    ("still unanswered ", false),
    ("\u{200B}", true),
    ("\u{202E}", true),
    ("\u{7}", true),
    ("a\u{FE0F}", true),
    ("👨\u{200D}💻", false),
    ("🏳\u{FE0F}\u{200D}🌈", false),
    ("&#x202E ", false),
    ("&#0000111", false),
    ("&ZeroWidthSpace;", false),
    ("&shy", false),
    ("&amp", false),
    ("<b>", false),
    ("</b>", false),
    ("<word>", false),
    (" 3 < 4 > 2 ", false),
    ("<!-- x -->", false),
    ("QUJDREVGR0g=", false),
    ("<p>", false),
];

/// Where a piece goes.
const FIELDS: [&str; 8] = [
    "message",
    "body",
    "subject",
    "blocks",
    "key",
    "in_reply_to",
    "raw",
    "amount",
];

thread_local! {
    static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

struct Recipe<'a> {
    data: &'a [u8],
}

impl Recipe<'_> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.data.split_first().unwrap_or((&0, &[]));
        self.data = rest;
        *first
    }
}

fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("airlock-fuzz-send-gate-{}", std::process::id()))
}

fn fresh_state(root: &Path) -> PathBuf {
    let state = root.join("state");
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(state.join("ledger")).expect("state directory");
    state
}

fn mkfifo(path: &Path) {
    // The fuzz crate has no libc binding; mkfifo(1) is everywhere libFuzzer runs.
    let _ = std::process::Command::new("mkfifo").arg(path).status();
}

fn ledger(digest: &str, is_reply: bool) -> Value {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    // RFC 3339 from the Unix time, without a date crate.
    let (days, secs) = (now / 86_400, now % 86_400);
    let (y, m, d) = civil(i64::try_from(days).unwrap_or(0));
    json!({
        "created_at": format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs / 60 % 60, secs % 60),
        "message_sha256": digest,
        "is_reply": is_reply,
        "thread_fully_read": {"source_ids": ["<1@mail.example>"]},
        "history_searched": [{"query": "from:ann", "where": "gmail"}],
        "claims": [{"claim": "the question is still unanswered", "source": "gmail", "read_at": format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)}],
        "voice_rules_pass": true,
        "invented_precision_scan": true,
        "recipient_address_check": true,
        "ragbot_branding_check": true
    })
}

/// Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
fn civil(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The call under construction, written as JSON text straight into one
/// buffer of the cap's size: the harness's own copies must not crowd the
/// gate's 64 MiB.
struct Call {
    json: String,
    /// The member being written: its index in [`FIELDS`].
    open: Option<usize>,
    hidden: bool,
    /// Bytes of dense markup written so far.
    dense: usize,
}

impl Call {
    fn new(tool: &str) -> Self {
        // One buffer for every run: a fresh 8 MiB one each time would leave
        // the allocator holding several.
        let mut buffer = BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
        buffer.clear();
        let mut json = String::from_utf8(buffer).unwrap_or_default();
        json.reserve_exact(CAP.saturating_sub(json.capacity()));
        json.push_str(r#"{"hook_event_name":"PreToolUse","tool_name":"#);
        json.push_str(&serde_json::to_string(tool).unwrap_or_default());
        json.push_str(r#","tool_input":{"channel":"C0123""#);
        Self {
            json,
            open: None,
            hidden: false,
            dense: 0,
        }
    }

    fn close(&mut self) {
        match self.open.take().map(|f| FIELDS[f]) {
            None | Some("amount") => {}
            Some("blocks") => self.json.push_str("\"}}]"),
            Some("key") => self.json.push_str("\":1"),
            Some(_) => self.json.push('"'),
        }
    }

    fn open(&mut self, field: usize, count: usize) {
        self.close();
        let name = FIELDS[field];
        match name {
            "amount" => {
                // Numbers that default float parsing would confuse.
                let n = ["10.444461873124279", "10.44446187312428", "1e2", "1.50", "-0.0"];
                self.json.push_str(r#","amount":"#);
                self.json.push_str(n[count % n.len()]);
            }
            "blocks" => self
                .json
                .push_str(r#","blocks":[{"type":"section","text":{"type":"mrkdwn","text":""#),
            "key" => self.json.push_str(",\""),
            _ => {
                self.json.push_str(",\"");
                self.json.push_str(name);
                self.json.push_str("\":\"");
            }
        }
        self.open = Some(field);
    }

    fn push(&mut self, piece: &str, is_hidden: bool, count: usize) {
        if self.open.map(|f| FIELDS[f]) == Some("amount") {
            return;
        }
        let quoted = serde_json::to_string(piece).unwrap_or_default();
        let escaped = &quoted[1..quoted.len() - 1];
        for _ in 0..count {
            self.json.push_str(escaped);
        }
        self.hidden |= is_hidden;
    }
}

fuzz_target!(|data: &[u8]| {
    let mut recipe = Recipe { data };
    let tool_index = usize::from(recipe.byte()) % TOOLS.len();
    let tool = TOOLS[tool_index];
    let layout = recipe.byte();
    let mut call = Call::new(tool);
    while !recipe.data.is_empty() {
        let op = recipe.byte();
        let reps = recipe.byte();
        let (piece, is_hidden) = PIECES[usize::from(op) % PIECES.len()];
        let field = usize::from(op / 32) % FIELDS.len();
        if call.open != Some(field) {
            call.open(field, usize::from(reps));
        }
        // 1 to 2^23 repetitions, escaped length counted: a few recipe bytes
        // reach the cap and never pass it.
        let unit = serde_json::to_string(piece).map_or(1, |q| q.len() - 2).max(1);
        let room = (CAP - 4096).saturating_sub(call.json.len()) / unit;
        // Dense markup (a tag or reference every few bytes) is padded to
        // 256 KiB only: 8 MiB of it takes over 1 s under the coverage
        // instrumentation alone (0.14 s of CPU in the release binary), and
        // `memory_stays_bounded_under_the_input_limit` holds that case on
        // the uninstrumented binary. Everything else goes to the cap.
        let dense = piece.contains(['<', '&']);
        let room = if dense {
            room.min(DENSE_MAX.saturating_sub(call.dense) / unit)
        } else {
            room
        };
        let count = (1usize << (reps % 24)).min(room);
        if dense {
            call.dense = call.dense.saturating_add(count * unit);
        }
        if count == 0 {
            break;
        }
        call.push(piece, is_hidden, count);
    }
    call.close();
    call.json.push_str("}}");
    let hidden = call.hidden;
    let bytes = call.json.into_bytes();
    if bytes.len() > CAP {
        return;
    }
    let root = scratch();
    let config = root.join("send-gate.json");
    if !config.exists() {
        std::fs::create_dir_all(&root).expect("scratch directory");
        std::fs::write(&config, CONFIG).expect("configuration");
    }
    let state = fresh_state(&root);
    // A recipe can build an unacceptable call (a duplicate key): it must block.
    let Ok(digest) = airlock_hooks::decoders::send_gate_digest(&bytes) else {
        let verdict = airlock_hooks::decoders::send_gate_decision(&bytes, &config, &state);
        assert!(verdict.is_err(), "an unparsable call passed");
        return;
    };
    let ledger_path = state.join("ledger").join(format!("{digest}.json"));
    let valid_ledger = layout & 1 != 0;
    let ledger_is_fifo = layout & 2 != 0;
    let ledger_is_link = layout & 4 != 0;
    let replay = layout & 32 != 0;
    let text = ledger(&digest, layout & 64 == 0).to_string();
    if valid_ledger {
        if ledger_is_link {
            let target = root.join("elsewhere.json");
            std::fs::write(&target, &text).expect("ledger");
            let _ = std::os::unix::fs::symlink(&target, &ledger_path);
        } else if ledger_is_fifo {
            mkfifo(&ledger_path);
        } else {
            std::fs::write(&ledger_path, &text).expect("ledger");
        }
    }
    if layout & 8 != 0 {
        mkfifo(&state.join("ledger").join("stray"));
    }
    if layout & 16 != 0 {
        mkfifo(&state.join("log.jsonl"));
    }
    let verdict = airlock_hooks::decoders::send_gate_decision(&bytes, &config, &state);
    // An exempt tool passes untouched, by design.
    if verdict.is_ok() && tool_index != EXEMPT {
        assert!(!hidden, "a call carrying a hidden code point passed");
        {
            assert!(
                valid_ledger && !ledger_is_fifo && !ledger_is_link,
                "a gated call passed without its valid ledger"
            );
            assert!(!ledger_path.exists(), "a passed ledger was not spent");
        }
    }
    if replay && verdict.is_ok() && tool_index != EXEMPT {
        // The spent ledger filed again, byte for byte, must not pass again.
        std::fs::write(&ledger_path, &text).expect("ledger");
        let again = airlock_hooks::decoders::send_gate_decision(&bytes, &config, &state);
        assert!(again.is_err(), "a spent ledger passed a second time");
    }
    BUFFER.with(|b| *b.borrow_mut() = bytes);
});
