//! The configuration file: the anchor's keys, validated and compiled up front.
//!
//! Every pattern is compiled when the file loads; one that does not compile
//! fails the load, because a skipped pattern is an invisible hole in the gate.

use std::path::{Path, PathBuf};

use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::prefilter::Prefilter;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind};
use regex_syntax::hir::{Hir, literal};
use serde::Deserialize;

/// The file as written. Unknown keys are an error: a misspelt key would
/// otherwise leave a rule silently off.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigFile {
    pub(crate) gated_tool_patterns: Vec<String>,
    pub(crate) exempt_tool_patterns: Vec<String>,
    pub(crate) block_patterns: Vec<NamedPattern>,
    pub(crate) warn_patterns: Vec<NamedPattern>,
    pub(crate) text_field_candidates: Vec<String>,
    pub(crate) ledger_max_age_minutes: f64,
    #[serde(default)]
    pub(crate) currency_claim_patterns: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) currency_claim_max_age_minutes: Option<f64>,
    #[serde(default)]
    pub(crate) peer_send_resolution: Option<PeerSendResolution>,
    #[serde(default)]
    pub(crate) direct_send_branding: Option<DirectSendBranding>,
    #[serde(default)]
    pub(crate) doctor_clean_controls: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) doctor_block_controls: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) doctor_sample_tools: Option<Vec<String>>,
}

/// A named regex of `block_patterns` / `warn_patterns`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NamedPattern {
    pub(crate) name: String,
    pub(crate) regex: String,
}

/// The peer-session lane: the target id must be an active ref on a board.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PeerSendResolution {
    pub(crate) tool_pattern: String,
    #[serde(default = "default_target_field")]
    pub(crate) target_field: String,
    pub(crate) board: String,
}

/// The branding lane of the anchor (`ragbot_branding_check`): a direct send
/// as the agent needs the ledger to attest that the agent's branding (its
/// signature) was checked.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DirectSendBranding {
    /// Tool names (searched, like `gated_tool_patterns`) that send directly
    /// as the agent; drafts a person reviews are usually not among them.
    pub(crate) tool_patterns: Vec<String>,
    #[serde(default = "default_branding_field")]
    pub(crate) ledger_field: String,
}

fn default_branding_field() -> String {
    "ragbot_branding_check".into()
}

fn default_target_field() -> String {
    "session_id".into()
}

/// Currency claims default to this maximum read age when the patterns are
/// adopted without one (the anchor's default).
const DEFAULT_CURRENCY_MAX_AGE_MINUTES: f64 = 30.0;
/// A freshness window beyond a week is a configuration mistake, not a policy.
const MAX_WINDOW_MINUTES: f64 = 7.0 * 24.0 * 60.0;

/// A compiled pattern: the engine of the `regex` crate (regex-automata's meta regex,
/// configured as `regex::RegexBuilder` configures it: leftmost-first, UTF-8, Unicode,
/// the same size limits), so every pattern matches exactly what `regex::Regex` matches.
///
/// What differs is what is built besides the matcher. The hook is one process per
/// call and compiles the whole configuration every time (callgrind on the 10 KB HTML
/// mail of `scripts/bench-send-gate.sh`: 80 % of a call was regex compilation,
/// `cli/SEND_GATE.md` "Cost"), and the gate never asks for a capture group, so:
/// * no capture slots but the whole match's, and no lazy DFA (which needs a reverse
///   NFA to find where a match starts): the bounded backtracker or the PikeVM, from
///   each prefilter candidate, walks the gate's few kilobytes in less time than the
///   reverse NFA takes to compile;
/// * a tool-name pattern searches one name of a few dozen bytes and is built without
///   the literal prefilter: extracting its literals from the gated patterns'
///   case-insensitive alternations and building their Aho-Corasick automaton cost
///   more than any search it could speed up;
/// * a text pattern keeps a prefilter, from short prefixes ([`TEXT_PREFIX_BYTES`]):
///   without one a text with one non-ASCII letter is walked whole by the PikeVM
///   (Unicode `\b`), which more than doubled a call.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    regex: meta::Regex,
}

impl Pattern {
    /// Compiles `pattern`, case-insensitively or as written, for `haystack`s.
    pub(crate) fn new(
        pattern: &str,
        case_insensitive: bool,
        haystack: Haystack,
    ) -> Result<Self, String> {
        let config = meta::Config::new()
            .nfa_size_limit(Some(NFA_SIZE_LIMIT))
            .hybrid_cache_capacity(HYBRID_CACHE_CAPACITY)
            .match_kind(MatchKind::LeftmostFirst)
            .utf8_empty(true)
            .which_captures(WhichCaptures::Implicit)
            .hybrid(false)
            .dfa(false);
        let syntax = syntax::Config::new()
            .utf8(true)
            .case_insensitive(case_insensitive);
        let built = match haystack {
            Haystack::ToolName => meta::Builder::new()
                .configure(config.auto_prefilter(false))
                .syntax(syntax)
                .build(pattern),
            Haystack::Text => {
                let hir = syntax::parse_with(pattern, &syntax).map_err(|e| e.to_string())?;
                meta::Builder::new()
                    .configure(config.auto_prefilter(false).prefilter(text_prefilter(&hir)))
                    .build_from_hir(&hir)
            }
        };
        built
            .map(|regex| Self { regex })
            .map_err(|e| match (e.size_limit(), e.syntax_error()) {
                (Some(limit), _) => {
                    format!("compiled, it exceeds the size limit of {limit} bytes")
                }
                (None, Some(syntax)) => syntax.to_string(),
                (None, None) => e.to_string(),
            })
    }

    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        self.regex.is_match(Input::new(haystack))
    }

    /// The leftmost-first match in `haystack`, as a byte range.
    pub(crate) fn find(&self, haystack: &str) -> Option<std::ops::Range<usize>> {
        self.regex.find(Input::new(haystack)).map(|m| m.range())
    }
}

/// How many bytes of each prefix a text pattern's prefilter looks for.
///
/// The meta regex extracts prefixes up to 100 bytes; under `(?i)` each letter is a
/// class of two or three (`s`, `S`, `ſ`), so a word of ten letters crosses into a
/// thousand literals before the limits cut them, and the extraction and the
/// Aho-Corasick automaton built from what is left were half of a call's instructions.
/// Three bytes cross into at most 27 literals and still skip all but a few
/// positions of a mail's text; a shorter prefix only adds candidates, each
/// confirmed by the pattern, so what matches is unchanged.
const TEXT_PREFIX_BYTES: usize = 3;

/// The prefix prefilter of a text pattern, as the meta regex builds it
/// (`regex_automata::util::prefilter::prefixes`, leftmost-first), from prefixes of
/// at most [`TEXT_PREFIX_BYTES`]; `None` when some match has no literal prefix.
fn text_prefilter(hir: &Hir) -> Option<Prefilter> {
    let mut extractor = literal::Extractor::new();
    extractor
        .kind(literal::ExtractKind::Prefix)
        .limit_literal_len(TEXT_PREFIX_BYTES);
    let mut prefixes = extractor.extract(hir);
    prefixes.optimize_for_prefix_by_preference();
    Prefilter::new(MatchKind::LeftmostFirst, prefixes.literals()?)
}

/// What a [`Pattern`] searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Haystack {
    /// One tool name.
    ToolName,
    /// Outgoing text, up to the input limit.
    Text,
}

/// `regex::RegexBuilder`'s defaults, kept so that a pattern too large for `regex` is
/// too large here.
const NFA_SIZE_LIMIT: usize = 10 * (1 << 20);
const HYBRID_CACHE_CAPACITY: usize = 2 * (1 << 20);

/// A pattern compiled, with the name it reports under.
#[derive(Debug)]
pub(crate) struct Rule {
    pub(crate) name: String,
    pub(crate) regex: Pattern,
}

/// The peer lane, compiled.
#[derive(Debug)]
pub(crate) struct PeerLane {
    pub(crate) tool: Pattern,
    pub(crate) target_field: String,
    pub(crate) board: PathBuf,
}

/// The currency-claim lane, compiled.
#[derive(Debug)]
pub(crate) struct CurrencyLane {
    pub(crate) patterns: Vec<Pattern>,
    pub(crate) max_age_minutes: f64,
}

/// The branding lane, compiled.
#[derive(Debug)]
pub(crate) struct BrandingLane {
    pub(crate) tools: Vec<Pattern>,
    pub(crate) ledger_field: String,
}

/// The verbs a send tool's name carries, as `--print-config`'s matcher spells them: a
/// server may write any of them in any case (`SendMail`, `post_message`, `REPLY_ALL`).
/// `mail` covers `email`; `message` catches `create_message`-style senders.
pub(crate) const SEND_VERBS: [&str; 11] = [
    "send", "post", "reply", "respond", "forward", "schedule", "draft", "mail", "message", "sms",
    "tweet",
];

/// The matcher `--print-config` registers: every MCP tool (`mcp__SERVER__TOOL`) whose
/// server or tool name holds a [`SEND_VERBS`] verb, in any case. Claude Code compiles a
/// matcher with `new RegExp(matcher)` and no flags (2.1.332; its cloud-session engine
/// takes only `(?i:…)` groups, and JavaScript rejects `(?i)` outright: the client logs
/// "Invalid regex pattern" and the hook never runs), so each letter is a class of both
/// cases, which every engine reads alike. Over-matching is safe (the gate blocks what
/// the configuration does not classify); a miss is a send nobody checks.
pub(crate) const SETTINGS_MATCHER: &str = "^mcp__.*(?:[Ss][Ee][Nn][Dd]|[Pp][Oo][Ss][Tt]|[Rr][Ee][Pp][Ll][Yy]|[Rr][Ee][Ss][Pp][Oo][Nn][Dd]|[Ff][Oo][Rr][Ww][Aa][Rr][Dd]|[Ss][Cc][Hh][Ee][Dd][Uu][Ll][Ee]|[Dd][Rr][Aa][Ff][Tt]|[Mm][Aa][Ii][Ll]|[Mm][Ee][Ss][Ss][Aa][Gg][Ee]|[Ss][Mm][Ss]|[Tt][Ww][Ee][Ee][Tt])";

/// Whether a tool's name holds a send verb in any case, as [`SETTINGS_MATCHER`] reads
/// it (the doctor's test of "a tool that can send").
pub(crate) fn names_a_send_verb(tool: &str) -> bool {
    let lower = tool.to_ascii_lowercase();
    lower.starts_with("mcp__") && SEND_VERBS.iter().any(|verb| lower.contains(verb))
}

/// How the configuration classifies a tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// A gated pattern matches: scan and ledger.
    Gated,
    /// No gated pattern matches, an exempt one does: passes untouched.
    Exempt,
    /// Neither: blocked when it reaches the gate.
    Unclassified,
}

/// A configuration that loaded, validated and compiled.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) gated: Vec<Pattern>,
    /// `gated_tool_patterns` as written, in the order of `gated`.
    pub(crate) gated_sources: Vec<String>,
    pub(crate) exempt: Vec<Pattern>,
    pub(crate) block: Vec<Rule>,
    pub(crate) warn: Vec<Rule>,
    pub(crate) text_fields: Vec<String>,
    pub(crate) ledger_max_age_minutes: f64,
    pub(crate) currency: Option<CurrencyLane>,
    pub(crate) peer: Option<PeerLane>,
    pub(crate) branding: Option<BrandingLane>,
    pub(crate) clean_controls: Vec<String>,
    pub(crate) block_controls: Vec<String>,
    /// Tool names the doctor checks the routing of, besides its own samples.
    pub(crate) sample_tools: Vec<String>,
}

/// Parses, validates and compiles a configuration. `home` expands a leading
/// `~/` in the peer board path.
pub(crate) fn parse_config(text: &str, home: Option<&Path>) -> Result<Config, String> {
    let file: ConfigFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
    compile(file, home)
}

fn compile(file: ConfigFile, home: Option<&Path>) -> Result<Config, String> {
    if file.gated_tool_patterns.is_empty() {
        return Err("gated_tool_patterns is empty: the gate would classify no tool".into());
    }
    if file.text_field_candidates.iter().all(|f| f.is_empty()) {
        return Err("text_field_candidates is empty: no outgoing text could be found".into());
    }
    let window = file.ledger_max_age_minutes;
    if !(window > 0.0 && window <= MAX_WINDOW_MINUTES) {
        return Err(format!(
            "ledger_max_age_minutes must be above 0 and at most {MAX_WINDOW_MINUTES} (got {window})"
        ));
    }
    let tool = |key: &str, list: &[String]| -> Result<Vec<Pattern>, String> {
        list.iter()
            .map(|p| {
                Pattern::new(p, false, Haystack::ToolName)
                    .map_err(|e| format!("{key}: pattern {p:?} does not compile: {e}"))
            })
            .collect()
    };
    let rules = |key: &str, list: &[NamedPattern]| -> Result<Vec<Rule>, String> {
        list.iter()
            .map(|p| {
                if p.name.trim().is_empty() {
                    return Err(format!("{key}: a pattern has an empty name"));
                }
                Ok(Rule {
                    name: p.name.clone(),
                    regex: insensitive(&p.regex, Haystack::Text)
                        .map_err(|e| format!("{key} {:?}: {e}", p.name))?,
                })
            })
            .collect()
    };
    let currency = match (
        file.currency_claim_patterns,
        file.currency_claim_max_age_minutes,
    ) {
        (None, None) => None,
        (None, Some(_)) => {
            return Err(
                "currency_claim_max_age_minutes is set but currency_claim_patterns is not".into(),
            );
        }
        (Some(patterns), max) => {
            if patterns.is_empty() {
                return Err(
                    "currency_claim_patterns is empty: leave it out to keep the lane off".into(),
                );
            }
            let max_age_minutes = max.unwrap_or(DEFAULT_CURRENCY_MAX_AGE_MINUTES);
            if !(max_age_minutes > 0.0 && max_age_minutes <= MAX_WINDOW_MINUTES) {
                return Err(format!(
                    "currency_claim_max_age_minutes must be above 0 and at most {MAX_WINDOW_MINUTES} (got {max_age_minutes})"
                ));
            }
            let patterns = patterns
                .iter()
                .map(|p| {
                    insensitive(p, Haystack::Text)
                        .map_err(|e| format!("currency_claim_patterns: {e}"))
                })
                .collect::<Result<_, _>>()?;
            Some(CurrencyLane {
                patterns,
                max_age_minutes,
            })
        }
    };
    let peer = match file.peer_send_resolution {
        None => None,
        Some(p) => {
            if p.target_field.is_empty() || p.board.is_empty() {
                return Err("peer_send_resolution needs a non-empty target_field and board".into());
            }
            let tool = Pattern::new(&p.tool_pattern, false, Haystack::ToolName)
                .map_err(|e| format!("peer_send_resolution.tool_pattern does not compile: {e}"))?;
            Some(PeerLane {
                tool,
                target_field: p.target_field,
                board: expand_home(&p.board, home)?,
            })
        }
    };
    let branding = match file.direct_send_branding {
        None => None,
        Some(b) => {
            if b.tool_patterns.is_empty() {
                return Err("direct_send_branding.tool_patterns is empty: leave the lane out to keep it off".into());
            }
            let field = b.ledger_field.trim();
            if field.is_empty() || field != b.ledger_field {
                return Err("direct_send_branding.ledger_field must be a non-empty name without surrounding spaces".into());
            }
            Some(BrandingLane {
                tools: tool("direct_send_branding.tool_patterns", &b.tool_patterns)?,
                ledger_field: b.ledger_field,
            })
        }
    };
    // Gated names match in any case (a server may spell `SendMail` or `send_mail`): a
    // broader gate only blocks more. Exempt names match as written, so an exemption
    // never widens on its own.
    let gated = file
        .gated_tool_patterns
        .iter()
        .map(|p| {
            insensitive(p, Haystack::ToolName).map_err(|e| format!("gated_tool_patterns: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Config {
        gated,
        gated_sources: file.gated_tool_patterns.clone(),
        exempt: tool("exempt_tool_patterns", &file.exempt_tool_patterns)?,
        block: rules("block_patterns", &file.block_patterns)?,
        warn: rules("warn_patterns", &file.warn_patterns)?,
        text_fields: file.text_field_candidates,
        ledger_max_age_minutes: window,
        currency,
        peer,
        branding,
        clean_controls: file.doctor_clean_controls.unwrap_or_default(),
        block_controls: file.doctor_block_controls.unwrap_or_default(),
        sample_tools: file.doctor_sample_tools.unwrap_or_default(),
    })
}

impl Config {
    /// The class of `tool`. Gated patterns are tried first, so a broad exemption
    /// (`fetch_…`, `get_…`) cannot exempt a tool a gated pattern names
    /// (`fetch_and_send_message`).
    pub(crate) fn classify(&self, tool: &str) -> Class {
        if self.gated.iter().any(|r| r.is_match(tool)) {
            Class::Gated
        } else if self.exempt.iter().any(|r| r.is_match(tool)) {
            Class::Exempt
        } else {
            Class::Unclassified
        }
    }

    /// The ledger field the branding lane requires of `tool`, if it does.
    pub(crate) fn branding_field(&self, tool: &str) -> Option<&str> {
        self.branding
            .as_ref()
            .filter(|b| b.tools.iter().any(|r| r.is_match(tool)))
            .map(|b| b.ledger_field.as_str())
    }
}

/// Patterns over message text match case-insensitively, as the anchor's
/// `re.IGNORECASE` did; gated tool names too.
fn insensitive(pattern: &str, haystack: Haystack) -> Result<Pattern, String> {
    Pattern::new(pattern, true, haystack)
        .map_err(|e| format!("pattern {pattern:?} does not compile: {e}"))
}

pub(crate) fn expand_home(path: &str, home: Option<&Path>) -> Result<PathBuf, String> {
    match path.strip_prefix("~/") {
        Some(rest) => home
            .map(|h| h.join(rest))
            .ok_or_else(|| format!("{path}: $HOME is not set")),
        None => Ok(PathBuf::from(path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::RegexBuilder;

    const MINIMAL: &str = r#"{"gated_tool_patterns":["send"],"exempt_tool_patterns":[],"block_patterns":[{"name":"b","regex":"bad"}],
        "warn_patterns":[],"text_field_candidates":["body"],"ledger_max_age_minutes":45}"#;

    #[test]
    fn loads_minimal() {
        let c = parse_config(MINIMAL, None).unwrap();
        assert!(c.block[0].regex.is_match("BAD"));
        assert!(c.currency.is_none() && c.peer.is_none());
    }

    #[test]
    fn refuses_unknown_keys_and_bad_values() {
        let unknown = MINIMAL.replace(
            "\"warn_patterns\"",
            "\"signature_link_enforcement\":{},\"warn_patterns\"",
        );
        assert!(
            parse_config(&unknown, None)
                .unwrap_err()
                .contains("unknown field")
        );
        let bad_regex = MINIMAL.replace("\"bad\"", "\"(\"");
        assert!(
            parse_config(&bad_regex, None)
                .unwrap_err()
                .contains("does not compile")
        );
        let zero = MINIMAL.replace(":45", ":0");
        assert!(parse_config(&zero, None).is_err());
        let nan_like = MINIMAL.replace(":45", ":-1");
        assert!(parse_config(&nan_like, None).is_err());
    }

    /// The matcher, rebuilt from the verb list: a verb added to one is in the other.
    fn matcher_from_verbs() -> String {
        let classes: Vec<String> = SEND_VERBS
            .iter()
            .map(|verb| {
                verb.chars()
                    .map(|c| format!("[{}{}]", c.to_ascii_uppercase(), c))
                    .collect()
            })
            .collect();
        format!("^mcp__.*(?:{})", classes.join("|"))
    }

    #[test]
    fn the_printed_matcher_catches_every_verb_in_any_case() {
        assert_eq!(SETTINGS_MATCHER, matcher_from_verbs());
        // Only what every engine reads alike: no flag group, no escape.
        assert!(!SETTINGS_MATCHER.contains("(?i") && !SETTINGS_MATCHER.contains('\\'));
        let matcher = regex::Regex::new(SETTINGS_MATCHER).unwrap();
        for tool in [
            "mcp__outlook__SendMail",
            "mcp__slack__slack_post_message",
            "mcp__slack__slack_reply_to_thread",
            "mcp__gmail__schedule_send",
            "mcp__x__REPLY_ALL",
            "mcp__x__ForwardEmail",
            "mcp__x__respond_to_email",
            "mcp__twilio__CreateMessage",
            "mcp__x__send_sms",
            "mcp__x__Tweet",
            "mcp__gmail__create_draft",
            "mcp__workspace-mcp__send_gmail_message",
            "mcp__sendgrid__create",
            "mcp__plugin_slack_slack__chat_postMessage",
        ] {
            assert!(matcher.is_match(tool), "{tool}");
            assert!(names_a_send_verb(tool), "{tool}");
        }
        for tool in [
            "Bash",
            "Write",
            "SendMail",
            "mcp__github__create_issue",
            "mcp__fs__read_file",
        ] {
            assert!(!matcher.is_match(tool), "{tool}");
            assert!(!names_a_send_verb(tool), "{tool}");
        }
    }

    #[test]
    fn gated_patterns_are_tried_before_exempt_ones() {
        let text = MINIMAL
            .replace(r#"["send"]"#, r#"["(^|__)(fetch_and_)?send_message$"]"#)
            .replace(
                r#""exempt_tool_patterns":[]"#,
                r#""exempt_tool_patterns":["(^|__)fetch_[a-z_]*$"]"#,
            );
        let c = parse_config(&text, None).unwrap();
        assert_eq!(c.classify("mcp__m__fetch_and_send_message"), Class::Gated);
        assert_eq!(c.classify("mcp__m__fetch_page"), Class::Exempt);
        assert_eq!(c.classify("mcp__m__delete_page"), Class::Unclassified);
        // Gated names match in any case; exempt ones as written.
        assert_eq!(c.classify("mcp__m__Send_Message"), Class::Gated);
        assert_eq!(c.classify("mcp__m__FETCH_page"), Class::Unclassified);
    }

    /// `Pattern` builds what `regex` builds minus what the gate does not use, and a
    /// shorter prefilter: every match must be the one `regex::Regex` finds.
    #[test]
    fn patterns_match_exactly_what_regex_matches() {
        let example: ConfigFile =
            serde_json::from_str(include_str!("../../../cli/send-gate.example.json")).unwrap();
        let mut text: Vec<String> = example
            .block_patterns
            .iter()
            .chain(&example.warn_patterns)
            .map(|p| p.regex.clone())
            .collect();
        text.extend(example.currency_claim_patterns.unwrap_or_default());
        text.extend(["^sorry$".into(), "k\\w+".into(), "(?-i:Sorry)|x{2,}".into()]);
        let haystacks = [
            "I'm sorry for the delay, truly.",
            "\u{17F}orry, I went quiet",
            "\u{17F}ORRY \u{b7} d\u{e9}lai \u{b7} late",
            "caf\u{e9}sorry for the delay",
            "sorry\u{e9} for the delay",
            "As an AI language model",
            "as an \u{212A}I",
            "Dear [Recipient Name], lorem ipsum.",
            "just circling back, maybe perhaps possibly",
            "still waiting \u{2014} hasn't replied, no reply yet",
            "\u{212A}elvin kelvin xxx Sorry sorry",
            "",
        ];
        for source in &text {
            let ours = Pattern::new(source, true, Haystack::Text).unwrap();
            let theirs = RegexBuilder::new(source)
                .case_insensitive(true)
                .build()
                .unwrap();
            for h in haystacks {
                let expected = theirs.find(h).map(|m| m.range());
                assert_eq!(ours.find(h), expected, "{source:?} on {h:?}");
                assert_eq!(ours.is_match(h), expected.is_some());
            }
        }
        for source in &example.gated_tool_patterns {
            let ours = Pattern::new(source, true, Haystack::ToolName).unwrap();
            let theirs = RegexBuilder::new(source)
                .case_insensitive(true)
                .build()
                .unwrap();
            for tool in [
                "mcp__slack__slack_send_message",
                "mcp__outlook__SendMail",
                "mcp__gmail__schedule_send",
                "mcp__x__create_message",
                "mcp__gmail__search_threads",
                "send",
            ] {
                assert_eq!(
                    ours.is_match(tool),
                    theirs.is_match(tool),
                    "{source:?} {tool}"
                );
            }
        }
    }

    #[test]
    fn expands_home_in_board() {
        assert_eq!(
            expand_home("~/b.md", Some(Path::new("/h"))).unwrap(),
            PathBuf::from("/h/b.md")
        );
        assert!(expand_home("~/b.md", None).is_err());
        assert_eq!(expand_home("/abs", None).unwrap(), PathBuf::from("/abs"));
    }
}
