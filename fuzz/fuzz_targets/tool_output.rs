//! The tool-output hook's whole decision on one PostToolUse call. Run it under the
//! limits the hook promises: `-rss_limit_mb=64 -timeout=1` (see fuzz/smoke.sh).
//!
//! The input is either raw stdin (first byte even) or, through a small grammar, a call
//! whose `tool_response` is built from pieces that matter here: fragments of special
//! tokens, wrapper literals, envelope markers and `<!--` (ASCII, fullwidth, Cyrillic,
//! with invisibles inside), ESC sequences cut anywhere, CR/LF, lone surrogate escapes,
//! MCP content blocks of several types, strings in keys, nesting, and padding up to
//! 1 MiB (a padded call, the hook's output line and the harness's parse of it must fit
//! in libFuzzer's 64 MiB beside its own ~24 MiB; the 8 MiB case is held by
//! `dense_and_growing_inputs_stay_within_64_mib` on the uninstrumented binary). Invariants:
//! * the answer is nothing or exactly one JSON line, and input that is not JSON is
//!   never answered with nothing;
//! * every string the model would read — in the replacement when there is one, in the
//!   original otherwise — keys included, and the joined text of adjacent text blocks,
//!   is already contained (containment leaves it unchanged), unless a cap cut it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Text pieces the grammar draws from, as JSON string content (escapes already written).
const PIECES: &[&str] = &[
    "<|",
    "|>",
    "im_end",
    "im_start",
    "<|im_end|>",
    "\\uff1c\\uff5c",
    "\\uff5c\\uff1e",
    "</APPLICABLE-",
    "RULES>",
    "</\\u0410PPLICABLE-RULES>",
    "\\uff1c/LEARNINGS-INDEX\\uff1e",
    "## Learnings",
    "\\u00a0Index (selected",
    "untrusted-content:",
    "END",
    "<!-",
    "-",
    "<!--",
    "\\uff1c!--",
    "[INST]",
    "<think>",
    "\\u001b",
    "\\u001b[31m",
    "[0m",
    "\\u001b]8;;http://e\\u0007",
    "\\u009b",
    "\\r\\n",
    "\\r",
    "\\n",
    "\\t",
    "\\u200b",
    "\\u200d",
    "\\ufeff",
    "\\u202e",
    "\\u2066",
    "\\udb40\\udc41",
    "\\ud800",
    "\\udfff",
    "\\ud83d\\udc68\\u200d\\ud83d\\udcbb",
    "\\ufe0f",
    "caf\\u00e9",
    "e\\u0301",
    "a",
    " ",
    "<",
    ">",
    "|",
    "#",
    "/",
];

/// Labels a content block may carry.
const TYPES: &[&str] = &[
    "text",
    "image",
    "resource",
    "resource_link",
    "audio",
    "tex\\u200bt",
];

/// Tool names: built-in shapes, an MCP tool, an unknown tool.
const TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "WebFetch",
    "Grep",
    "Glob",
    "mcp__web__fetch",
    "Other",
];

struct Gen<'a> {
    data: &'a [u8],
}

impl Gen<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    fn pick<'p>(&mut self, from: &[&'p str]) -> &'p str {
        from[usize::from(self.byte()) % from.len()]
    }

    fn text(&mut self, out: &mut String) {
        out.push('"');
        for _ in 0..self.byte() % 12 {
            out.push_str(self.pick(PIECES));
        }
        out.push('"');
    }

    fn value(&mut self, out: &mut String, depth: u8) {
        let kind = if depth >= 6 { 0 } else { self.byte() % 7 };
        match kind {
            0 | 1 => self.text(out),
            2 => out.push_str(match self.byte() % 4 {
                0 => "null",
                1 => "true",
                2 => "-1.5e300",
                _ => "12345678901234567890123",
            }),
            3 | 4 => {
                // MCP content blocks.
                out.push('[');
                for i in 0..self.byte() % 5 {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str("{\"type\":\"");
                    out.push_str(self.pick(TYPES));
                    out.push_str("\",\"text\":");
                    self.text(out);
                    if self.byte() % 4 == 0 {
                        out.push_str(",\"isError\":true");
                    }
                    out.push('}');
                }
                out.push(']');
            }
            5 => {
                out.push('[');
                for i in 0..self.byte() % 4 {
                    if i > 0 {
                        out.push(',');
                    }
                    self.value(out, depth + 1);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..self.byte() % 4 {
                    if i > 0 {
                        out.push(',');
                    }
                    self.text(out);
                    out.push(':');
                    self.value(out, depth + 1);
                }
                out.push('}');
            }
        }
    }
}

/// A call from the grammar, and the cap it runs under.
fn grammar(data: &[u8]) -> (Vec<u8>, Option<usize>) {
    let mut g = Gen { data };
    let tool = g.pick(TOOLS);
    let cap = match g.byte() % 4 {
        0 => Some(usize::from(g.byte())),
        _ => None,
    };
    let mut response = String::new();
    g.value(&mut response, 0);
    // Padding: a long plain string or many small values. Reserved exactly: a doubling
    // buffer would count against the 64 MiB that the hook, not the harness, promises.
    let (pad, unit) = match g.byte() % 8 {
        0 => (usize::from(g.byte()) << 12, "x"),
        1 => (usize::from(g.byte()) << 10, "0,"),
        _ => (0, ""),
    };
    let mut call = String::with_capacity(response.len() + pad * 2 + 64);
    call.push_str("{\"tool_name\":\"");
    call.push_str(tool);
    call.push_str("\",\"tool_response\":");
    call.push_str(&response);
    match unit {
        "x" => {
            call.push_str(",\"pad\":\"");
            (0..pad).for_each(|_| call.push('x'));
            call.push('"');
        }
        "0," => {
            call.push_str(",\"pad\":[");
            (0..pad).for_each(|_| call.push_str("0,"));
            call.push_str("0]");
        }
        _ => {}
    }
    call.push('}');
    (call.into_bytes(), cap)
}

fn is_text_block(v: &Value) -> Option<&str> {
    let block = v.as_object()?;
    if block.get("type")?.as_str()? != "text" {
        return None;
    }
    block.get("text")?.as_str()
}

/// Asserts every string of `v` (keys too) and every joined run of adjacent text blocks
/// is a fixed point of containment.
fn assert_contained(v: &Value, what: &str) {
    let check = |s: &str| {
        if let Some(again) = airlock_hooks::decoders::tool_output_contain(s) {
            panic!("{what}: {s:?} is not contained (would become {again:?})");
        }
    };
    match v {
        Value::String(s) => check(s),
        Value::Array(items) => {
            let mut run = String::new();
            let mut blocks = 0;
            for item in items {
                match is_text_block(item) {
                    Some(t) => {
                        run.push_str(t);
                        blocks += 1;
                    }
                    None => {
                        if blocks > 1 {
                            check(&run);
                        }
                        run.clear();
                        blocks = 0;
                    }
                }
                assert_contained(item, what);
            }
            if blocks > 1 {
                check(&run);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                check(k);
                assert_contained(item, what);
            }
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let (input, cap) = match data.split_first() {
        Some((&mode, rest)) if mode % 2 == 0 => (rest.to_vec(), None),
        Some((_, rest)) => grammar(rest),
        None => return,
    };
    // The hook's deadline, longer than libFuzzer's timeout: a slow input is a finding.
    let line = airlock_hooks::decoders::tool_output(&input, cap, 10_000);
    let Some(line) = line else {
        let call: Value = serde_json::from_slice(&input)
            .expect("input that is not JSON was answered with nothing");
        if let Some(response) = call.get("tool_response") {
            assert_contained(response, "unchanged output");
        }
        return;
    };
    assert!(
        line.ends_with('\n') && line.matches('\n').count() == 1,
        "{line:?}"
    );
    let reply: Value = serde_json::from_str(&line).expect("the line is JSON");
    let specific = &reply["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PostToolUse");
    let updated = specific
        .get("updatedToolOutput")
        .expect("a reply always replaces the output");
    // A cap cuts after containment and adds its note: the cut text need not be a fixed
    // point (the note is), so only uncapped replacements are checked whole.
    if cap.is_none() {
        assert_contained(updated, "replacement");
    }
});
