// Writes core/src/strict/tokens.rs, the strict profile's fixed patterns (PROFILE-STRICT
// §5), from scripts/tokens/tokens.json: the chat-template control tokens of the open-model
// families, the client's own tags and the reference's wrapper names, each with where it
// was taken from. Run via scripts/gen-tables.sh (--check diffs instead of writing).
//
// A token the generic shape `<|` name `|>` matches on the folded view (U+FF5C folds to
// `|`) gets no fixed pattern: the file records it and the vectors test it. Every other
// token must fold to plain ASCII. A tag or wrapper name N gives `<N>`, `<N` before a
// space, TAB or line feed (an opening tag with attributes), and a tag `</N>`.
//
// Fails, naming the entry, when the patterns would break what the matcher and §5's
// one-pass argument rest on: a pattern that is not ASCII on the folded view, begins with
// a byte other than `<` or `[` (`u` is the envelope markers'), begins with `<|` (the
// generic shape's), is shorter than 4 (the matcher's tables look at four) or longer than PATTERN_MAX bytes, is a prefix of
// another, shares text with a replacement at either end, or an entry without a source.
//
// Usage: node gen-tokens.mjs OUTPUT_PATH

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as d from '../unicode/strict-data.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const outPath = process.argv[2] ?? d.fail('usage: gen-tokens.mjs OUTPUT_PATH');
const data = JSON.parse(readFileSync(resolve(here, 'tokens.json'), 'utf8'));

// What the matcher holds besides these (core/src/forgery.rs, core/src/strict/matcher.rs;
// a Rust test holds them equal).
const MARKERS = ['untrusted-content:start', 'untrusted-content:end'];
const COMMENT = '<!--';
const REPLACEMENTS = ['[redacted special token]', '[redacted-envelope-marker]', '[html-comment]'];
// The longest fixed pattern, in folded bytes: with a kept member of D after each of its
// code points it still fits the matcher's hold of 80 code points.
const PATTERN_MAX = 32;
const NAME_MAX = 64;

const cpsOf = (s) => [...s].map((c) => c.codePointAt(0));
const hex = (cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

// ---- sources ---------------------------------------------------------------------------
const sources = data.sources ?? d.fail('tokens.json: no "sources"');
for (const [id, s] of Object.entries(sources)) {
	const kinds = ['npm', 'pypi', 'repo', 'doc'].filter((k) => k in s);
	if (kinds.length !== 1) d.fail(`tokens.json: source "${id}" names ${kinds.length} kinds of origin (npm, pypi, repo, doc): one`);
	if ((s.npm || s.pypi) && !(s.version && s.file && /^[0-9a-f]{64}$/.test(s.sha256 ?? ''))) d.fail(`tokens.json: source "${id}" needs version, file and sha256`);
	if (s.repo && !(s.path && /^[0-9a-f]{40}$/.test(s.commit ?? ''))) d.fail(`tokens.json: source "${id}" needs path and a 40-hex commit`);
}
const cite = (what, ids) => {
	if (!Array.isArray(ids) || ids.length === 0) d.fail(`tokens.json: ${what} has no source`);
	for (const id of ids) if (!(id in sources)) d.fail(`tokens.json: ${what} names the unknown source "${id}"`);
	return ids;
};
const originOf = (id) => {
	const s = sources[id];
	if (s.npm) return `${s.npm}@${s.version} ${s.file}`;
	if (s.pypi) return `${s.pypi}==${s.version} (PyPI) ${s.file}`;
	if (s.repo) return `${s.repo}@${s.commit.slice(0, 12)} ${s.path}`;
	return s.doc;
};

// ---- the folded view (§4) --------------------------------------------------------------
/** Per code point: its fold (a string) or null for a barrier. */
const foldsOf = (s) => cpsOf(s).map((cp) => ({ cp, f: d.fold(cp) }));

/** Whether `s` is one generic token `<|` name `|>` on the folded view (§5). */
function isGeneric(s) {
	const units = [];
	for (const { f } of foldsOf(s)) {
		if (f === null) units.push(null);
		else units.push(...f);
	}
	if (units[0] !== '<' || units[1] !== '|' || units.at(-2) !== '|' || units.at(-1) !== '>') return false;
	const name = foldsOf(s).slice(1, -1);
	// The name's code points: those between the `|`s (the fold of `｜` is one `|`).
	if (name.length < 3) return false;
	const inner = name.slice(1, -1);
	if (name[0].f !== '|' || name.at(-1).f !== '|') return false;
	if (inner.length < 1 || inner.length > NAME_MAX) return false;
	return inner.every(({ f }) => f === null || !/[\s<>|]/.test(f));
}

/** The folded spelling of `s`, which must be printable ASCII with no barrier. */
function foldedAscii(s, what) {
	let out = '';
	for (const { cp, f } of foldsOf(s)) {
		if (f === null) d.fail(`${what}: ${hex(cp)} is a barrier on the folded view; a fixed pattern must fold to ASCII`);
		out += f;
	}
	if (!/^[\x20-\x7e\t\n]+$/.test(out)) d.fail(`${what}: folds to ${JSON.stringify(out)}, not plain ASCII`);
	return out;
}

// ---- the patterns ----------------------------------------------------------------------
/** Every fixed pattern: folded bytes, its spelling in reports, what replaces it. */
const fixed = [];
const generic = [];
const seen = new Map();
const add = (pattern, spelling, kind, what) => {
	if (seen.has(pattern)) d.fail(`${what}: ${JSON.stringify(pattern)} is listed twice (also ${seen.get(pattern)})`);
	seen.set(pattern, what);
	fixed.push({ pattern, spelling, kind, what });
};

for (const t of data.tokens ?? d.fail('tokens.json: no "tokens"')) {
	const what = `token ${JSON.stringify(t.token)}`;
	cite(what, t.sources);
	if (!t.family) d.fail(`${what}: no family`);
	if (isGeneric(t.token)) {
		generic.push(t);
		continue;
	}
	add(foldedAscii(t.token, what), t.token, 'Token', what);
}
// The closing wrapper literals are the reference's rejected literals already (SPEC §4);
// as patterns too they would make `</APPLICABLE-RULE` repeated walk 17 bytes of the table
// at every `<` (the gate's hostile-literal-prefix pool).
const tagPatterns = (name, what, closing = true) => {
	const n = foldedAscii(name, what);
	if (!/^[a-z][a-z0-9_-]*$/.test(n)) d.fail(`${what}: a tag name is a letter, then letters, digits, '_' or '-'`);
	return [`<${n}>`, `<${n} `, `<${n}\t`, `<${n}\n`, ...(closing ? [`</${n}>`] : [])];
};
const tagSpelling = (name, p) => p.replace(name.toLowerCase(), name);
for (const [list, label] of [
	[data.client_tags ?? d.fail('tokens.json: no "client_tags"'), 'client tag'],
	[data.wrappers ?? d.fail('tokens.json: no "wrappers"'), 'wrapper'],
]) {
	for (const t of list) {
		const what = `${label} ${JSON.stringify(t.name)}`;
		cite(what, t.sources);
		for (const p of tagPatterns(t.name, what, label !== 'wrapper')) add(p, tagSpelling(t.name, p), 'Token', what);
	}
}
const tokenCount = fixed.length;
for (const m of MARKERS) add(m, m, 'Marker', `marker ${m}`);
add(COMMENT, COMMENT, 'Comment', 'the comment opening');

for (const e of data.excluded ?? []) {
	const what = `excluded ${JSON.stringify(e.token ?? e.name)}`;
	cite(what, e.sources);
	if (!e.why) d.fail(`${what}: no reason`);
	const forms = e.token !== undefined ? [e.token.toLowerCase()] : tagPatterns(e.name, what);
	for (const f of forms) if (seen.has(f)) d.fail(`${what}: ${JSON.stringify(f)} is also a pattern (${seen.get(f)})`);
}

// ---- what the matcher and §5 rest on ---------------------------------------------------
const overlaps = (a, b) => {
	// A non-empty suffix of `a` that is a prefix of `b`.
	for (let k = 1; k <= Math.min(a.length, b.length); k++) if (a.slice(-k) === b.slice(0, k)) return true;
	return false;
};
for (const { pattern: p, what, kind } of fixed) {
	if (p.length < 4 || p.length > PATTERN_MAX) d.fail(`${what}: ${p.length} bytes; a fixed pattern has 4 to ${PATTERN_MAX}`);
	const first = kind === 'Marker' ? 'u' : '<[';
	if (!first.includes(p[0])) d.fail(`${what}: begins with ${JSON.stringify(p[0])}; only the markers begin with 'u', the rest with '<' or '['`);
	if (p.startsWith('<|')) d.fail(`${what}: begins with '<|', the generic token's opening`);
	for (const r of REPLACEMENTS) {
		// A second pass would find a match a replacement took part in (§8's idempotence).
		if (r.includes(p) || p.includes(r) || overlaps(p, r) || overlaps(r, p)) d.fail(`${what}: shares text with the replacement ${r}`);
	}
}
const sorted = [...fixed].sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0));
for (let i = 0; i + 1 < sorted.length; i++) {
	// Sorted, a pattern that is a prefix of another is one of its neighbours.
	if (sorted[i + 1].pattern.startsWith(sorted[i].pattern)) d.fail(`${sorted[i].what} is a prefix of ${sorted[i + 1].what}`);
}

// ---- the Rust --------------------------------------------------------------------------
const rust = (s) => JSON.stringify(s).replace(/\\u([0-9a-f]{4})/g, (_, h) => `\\u{${h}}`);
const usedSources = [...new Set([...data.tokens, ...data.client_tags, ...data.wrappers].flatMap((t) => t.sources))];
const tokens = sorted.filter((t) => t.kind === 'Token');
const lines = [
	'// Generated by scripts/gen-tables.sh (scripts/tokens/gen-tokens.mjs) from',
	'// scripts/tokens/tokens.json; do not edit. The tokens were taken from:',
	...usedSources.map((id) => `//   ${id}: ${originOf(id)}`),
	`// ${generic.length} listed tokens are the generic shape \`<|\` name \`|>\` and have no fixed pattern:`,
	...generic.map((t) => `//   ${t.token} (${t.family})`),
	'',
	'use super::Kind;',
	'',
	`/// The fixed special tokens (§5): ${tokenCount} patterns, as their sources spell them, in`,
	'/// the order of their folded bytes. Chat-template control tokens, the client\'s own tags',
	'/// and the reference\'s wrapper names (opening with `>` or white space, closing); where each',
	'/// comes from is in `scripts/tokens/tokens.json`.',
	`pub const SPECIAL_TOKENS: [&str; ${tokens.length}] = [`,
	...tokens.map((t) => `    ${rust(t.spelling)},`),
	'];',
	'',
	'/// Every fixed pattern, folded (ASCII lower case), with what replaces it: the tokens, the',
	'/// envelope markers and `<!--`, sorted bytewise and prefix-free (the generator checks both),',
	'/// so the patterns beginning with some bytes are one run of the table.',
	`pub(super) const FIXED: [(&str, Kind); ${sorted.length}] = [`,
	...sorted.map((t) => `    (${rust(t.pattern)}, Kind::${t.kind}),`),
	'];',
	'',
	'/// The longest fixed pattern, in bytes.',
	`pub(super) const PATTERN_MAX: usize = ${Math.max(...sorted.map((t) => t.pattern.length))};`,
	'',
];
if (tokens.length !== tokenCount) d.fail('internal: token count');
writeFileSync(outPath, lines.join('\n'));
console.error(`gen-tokens: wrote ${outPath} (${sorted.length} fixed patterns, ${generic.length} generic tokens)`);
