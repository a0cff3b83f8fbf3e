// Holds the reference profile against the JavaScript engine it runs under: the behaviours
// of sanitize.mjs 3.20.0 (and check-unicode-safety.mjs, the frontmatter gate) that rest
// on the engine's own Unicode data rather than on code points the module spells out.
//   1. `/\p{Extended_Pictographic}/u` (the orphan-selector rule): must be exactly
//      core/src/tables.rs's table (versions.json "reference").
//   2. `String.prototype.toLowerCase` (the forgery check): the non-ASCII code points
//      whose full lower case holds printable ASCII must be U+0130 (-> i U+0307) and
//      U+212A (-> k), neither of which can complete a literal (SPEC §4).
//   3. `\s` and `trim` (the gate's white space): must be the 25 code points of
//      WhiteSpace ∪ LineTerminator that Unicode 17.0 and 18.0 share.
// `\p{Cc}` is fixed by Unicode's stability policy, and the marker regex's `/i` without
// `/u` never matches a non-ASCII code point against ASCII, so neither depends on the
// engine. Run by scripts/unicode/bump.sh --check under Node 20 and Node 24.
//
// Usage: node node-engine-check.mjs

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const table = readFileSync(resolve(here, '..', '..', 'core', 'src', 'tables.rs'), 'utf8');
const ranges = [...table.matchAll(/^ {4}\(0x([0-9A-F]+), 0x([0-9A-F]+)\),$/gm)].map((m) => [parseInt(m[1], 16), parseInt(m[2], 16)]);
const version = /UNICODE_VERSION: &str = "([^"]+)"/.exec(table)?.[1];
const problems = [];

const EP = /\p{Extended_Pictographic}/u;
const ours = new Set();
for (const [lo, hi] of ranges) for (let cp = lo; cp <= hi; cp++) ours.add(cp);
const lower = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
	if (cp >= 0xd800 && cp <= 0xdfff) continue;
	const ch = String.fromCodePoint(cp);
	if (EP.test(ch) !== ours.has(cp)) problems.push(`U+${cp.toString(16).toUpperCase()}: engine Extended_Pictographic ${EP.test(ch)}, table ${ours.has(cp)}`);
	if (cp >= 0x80 && /[\x20-\x7e]/.test(ch.toLowerCase())) lower.push(cp);
}
if (lower.join() !== [0x130, 0x212a].join()) problems.push(`toLowerCase maps ${lower.map((c) => c.toString(16))} to ASCII`);
const ws = [];
for (let cp = 0; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) if (/\s/.test(String.fromCodePoint(cp))) ws.push(cp);
const WS = [0x9, 0xa, 0xb, 0xc, 0xd, 0x20, 0xa0, 0x1680, ...Array.from({ length: 11 }, (_, i) => 0x2000 + i), 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];
if (ws.join() !== WS.join()) problems.push(`\\s is ${ws.map((c) => c.toString(16))}`);
if (problems.length > 0) {
	console.error(`node-engine-check: Node ${process.version} (Unicode ${process.versions.unicode}) differs from the reference profile's tables (Unicode ${version}):`);
	for (const p of problems.slice(0, 20)) console.error(`  ${p}`);
	process.exit(1);
}
console.error(`node-engine-check: Node ${process.version} (Unicode ${process.versions.unicode}, ICU ${process.versions.icu}) matches the reference profile (Extended_Pictographic of Unicode ${version}, ${ours.size} code points; lower case; \\s)`);
