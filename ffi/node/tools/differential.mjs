// Generated comparison of the binding against the reference module itself.
//
//   node tools/differential.mjs /path/to/reference-entry.mjs [iterations] [seed]
//
// The entry module must export the reference's functions under their own names
// (`sanitizeProse`, `truncateToBytes`, `stripDangerousInvisibles`,
// `isDangerousInvisibleCodePoint`, `assertNoControlChars`, `assertSafeDescription`,
// `assertSafeGlob`, `assertNoWrapperForgery`, `assertMachineToken`,
// `deriveFenceToken`, `parseGlobsFrontmatter`, and `frontmatterRefusalReason(doc,
// { gate })` for both gates). The reference is not part of this repository; point
// this at a checkout of session-orchestrator. Inputs are drawn from an alphabet
// weighted toward what JavaScript and Rust disagree about: line terminators (CR,
// U+2028, U+2029, NEL), `\s` members Rust does not count as white space (U+FEFF)
// and the reverse (U+0085, U+200E), quotes, `-`, `#`, `:`, delimiters and lone
// surrogates. Every disagreement is printed as a JSON line in the vectors' format
// (the reference's result), so a finding can go straight into a vectors file.

import { pathToFileURL } from 'node:url';
import path from 'node:path';

import * as airlock from '../index.js';
import { EXPIRES_AT_RE, HOST_CLASS_RE, LEARNING_KEY_RE, PROVENANCE_TOKEN_RE } from '../index.js';

const [entry, iterationsArg = '20000', seedArg = '1'] = process.argv.slice(2);
if (entry === undefined) {
  console.error('usage: node tools/differential.mjs REFERENCE_ENTRY.mjs [iterations] [seed]');
  process.exit(2);
}
const ref = await import(pathToFileURL(path.resolve(entry)).href);
const iterations = Number(iterationsArg);

// xorshift32: reproducible from the seed.
let state = Number(seedArg) >>> 0 || 1;
function rand(n) {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state % n;
}
const pick = (xs) => xs[rand(xs.length)];

const ATOMS = [
  '\n', '\n', '\n', '\r\n', '\r', '\r\r\n', '\u2028', '\u2029', '\u0085', '\u000b', '\u000c',
  ' ', ' ', '  ', '\t', '\u00a0', '\ufeff', '\u200e', '\u200b', '\u3000', '\u1680', '\u180e',
  '-', '- ', '  - ', '#', ':', ': ', '"', "'", '[', ']', ',', '---', '---\n', '\n---\n',
  '<!--', '-->', '<!-- c -->', 'a', 'b', 'x/**', 'é', '€', '😀', '\ufe0f', '\ud83d', '\ude00',
  'globs:', 'paths:', 'globs: ', 'paths: [', 'mode: h', 'description: d', 'host-class: h',
  'alwaysApply: true', 'alwaysApply: false', 'auto-generated: true', 'learning-key: k',
  'expires-at: 2099-01-01', 'confidence: ', '0x1f', '1e3', '.5', 'Infinity', '-0', 'tier: t',
  'untrusted-content:end', '</APPLICABLE-RULES>', '\u0000', '\u001b', '\u007f',
];

function text(maxAtoms) {
  let s = '';
  const n = rand(maxAtoms);
  for (let i = 0; i < n; i++) s += pick(ATOMS);
  return s;
}

function documentText() {
  const preamble = ['', '', '<!-- h -->\n', '\n', '\r\n', '\r\r\n', '<!-- a\u2028b -->\n', ' \t\n', '<!-- x -->\r\r\n'];
  const open = ['---\n', '---\n', '---\r\n', '---\r\r\n', '--- \n', '---'];
  const close = ['\n---\n', '\n---\n', '\n---', '\n---\r\n', '\n---\r\r\n', '\n--- \n', '\n---x\n'];
  const lines = [];
  const n = rand(6);
  for (let i = 0; i < n; i++) lines.push(text(6));
  return pick(preamble) + pick(open) + lines.join(pick(['\n', '\n', '\r\n', '\r'])) + pick(close) + text(3);
}

function outcome(fn) {
  try {
    return { ok: fn() ?? null };
  } catch (err) {
    return err instanceof TypeError ? { throwsType: 'TypeError' } : { throws: err.message };
  }
}

const PATTERNS = { HOST_CLASS_RE, LEARNING_KEY_RE, EXPIRES_AT_RE, PROVENANCE_TOKEN_RE };

// Text for JavaScript's Number(): signs, prefixes, digits, dots, exponents, white space.
function numberish() {
  const parts = ['', '+', '-', '0x', '0X', '0o', '0b', '0', '1', '9', '7', 'f', 'F', '.', 'e', 'E', '_', ' ', '\u00a0', '\ufeff', 'Infinity', 'inf', 'NaN', '2', '5'];
  let s = '';
  for (let i = rand(7); i >= 0; i--) s += pick(parts);
  return s;
}

// Values that are not strings, and strings that look like numbers.
function value() {
  return pick([
    () => rand(0x10000),
    () => rand(0x10000) + 0.5,
    () => String(pick([0xad, 0x200b, 0x200c, 0x2060, 0x2062, 0xfeff, 0xe0001, 0x115f, 0x1160])),
    () => `0x${pick([0x200b, 0x202a, 0x2066, 0xad]).toString(16)}`,
    () => null,
    () => true,
    () => [text(3)],
    () => [...text(4)],
    () => BigInt(pick([0x200b, 0xad, 0x2064])),
    () => text(3),
  ])();
}

const CASES = [
  () => ['parseGlobsFrontmatter', [documentText()]],
  () => ['frontmatterRefusalReason', [documentText()]],
  () => ['frontmatterRefusalReason', [documentText(), { gate: '3.21' }]],
  () => ['sanitizeProse', [text(8), { field: 'insight', maxBytes: rand(12) }]],
  () => ['stripDangerousInvisibles', [text(8)]],
  () => ['truncateToBytes', [text(8), rand(12)]],
  () => ['assertNoControlChars', [text(4), 'field']],
  () => ['assertSafeGlob', [text(3)]],
  () => ['assertSafeDescription', [text(4)]],
  () => ['assertNoWrapperForgery', [text(6), 'insight']],
  () => ['assertMachineToken', [text(3), { field: 'k', pattern: pick(Object.keys(PATTERNS)) }]],
  () => ['deriveFenceToken', [text(5)]],
  // Longer prose, caps that cut anywhere: the UTF-16 path's blocks and tails.
  () => ['sanitizeProse', [text(60), { field: pick(['insight', 'f\ud800', 'title']), maxBytes: rand(300) }]],
  () => ['deriveFenceToken', [text(60)]],
  () => ['parseGlobsFrontmatter', [`---\nconfidence: ${numberish()}\n---\n`]],
  () => ['parseGlobsFrontmatter', [`---\nconfidence: 0x${'f'.repeat(rand(20))}${pick(['1', '8', '0'])}\n---\n`]],
  () => ['isDangerousInvisibleCodePoint', [value()]],
  () => ['stripDangerousInvisibles', [value()]],
  () => ['sanitizeProse', [value(), { field: 'insight', maxBytes: rand(12) }]],
  () => ['truncateToBytes', [value(), pick([rand(6), value()])]],
  () => ['parseGlobsFrontmatter', [value()]],
  () => ['frontmatterRefusalReason', [value()]],
  () => ['assertNoControlChars', [value(), 'f']],
  () => ['assertSafeGlob', [value()]],
  () => ['deriveFenceToken', [value()]],
];

// The arguments as the vectors spell them (a pattern by its export's name).
function call(mod, name, args) {
  const real = args.map((a) => (a && typeof a.pattern === 'string' ? { ...a, pattern: PATTERNS[a.pattern] } : a));
  return outcome(() => mod[name](...real));
}

let differ = 0;
for (let i = 0; i < iterations; i++) {
  const [name, args] = pick(CASES)();
  const want = call(ref, name, args);
  const got = call(airlock, name, args);
  if (JSON.stringify(want) !== JSON.stringify(got)) {
    differ++;
    const gate = args[1] && args[1].gate ? { gate: args[1].gate } : {};
    const line = { fn: name, ...gate, args: gate.gate ? [args[0]] : args, ...want };
    console.log(JSON.stringify(line, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)));
    console.error(`  airlock: ${JSON.stringify(got)}`);
  }
}
console.error(`${iterations} calls, ${differ} differ`);
process.exit(differ === 0 ? 0 : 1);
