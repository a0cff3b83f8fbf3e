// airlock-wasm against the native binding (ffi/node over libairlock) and the
// JavaScript reference (ffi/node/bench/reference.mjs), in one process, on the same
// 64 KiB strings: sanitizeProse (both profiles where a side has them),
// stripDangerousInvisibles, deriveFenceToken. Each round runs every side once over
// the same 16 fresh texts of a kind; rounds rotate which side goes first; each
// side's time is summed over rounds in process CPU time. Reports only, no gate.
//
//   cargo build -p airlock-ffi --release && (cd ffi/node && npm ci)
//   scripts/package-wasm.sh OUT
//   node wasm/test/bench.mjs OUT/playground/airlock-wasm/index.js [--quick]

import path from 'node:path';
import { pathToFileURL } from 'node:url';

import * as native from '../../ffi/node/index.js';
import * as reference from '../../ffi/node/bench/reference.mjs';

const args = process.argv.slice(2);
const entry = args.find((a) => !a.startsWith('--'));
if (!entry) {
  console.error('usage: node wasm/test/bench.mjs PATH/TO/airlock-wasm/index.js [--quick]');
  process.exit(2);
}
const wasm = await import(pathToFileURL(path.resolve(entry)).href);
const ROUNDS = args.includes('--quick') ? 4 : 12;
const SIZE = 64 * 1024;
const TEXTS = 16;

// xorshift32: every run measures the same strings.
let state = 0x2545f491;
function rand(n) {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state % n;
}
const WORDS = 'a green gate is not evidence rerun the suite before you trust it flaky tests hide here'.split(' ');
const ODD = {
  ascii: [],
  mixed: ['—', '“quoted”', '…', 'café', '€12', '日本語', '😀', 'señor'],
  dirty: ['—', 'café', '日本語', '😀\uFE0F', 'a\u200bb', '\u0007', 'x\u202ey', '\u{E0041}'],
};
function text(kind) {
  const parts = [];
  let len = 0;
  while (len < SIZE) {
    const odd = ODD[kind];
    const w = odd.length > 0 && rand(12) === 0 ? odd[rand(odd.length)] : WORDS[rand(WORDS.length)];
    parts.push(w);
    len += Buffer.byteLength(w) + 1;
  }
  // Cut to the byte size on a code point boundary.
  return native.truncateToBytes(parts.join(' '), SIZE).text;
}

const opts = (profile) => ({ field: 'insight', maxBytes: 1 << 30, profile });
const CASES = [
  ['sanitizeProse reference', (m, t) => m.sanitizeProse(t, opts('reference')), true],
  ['sanitizeProse strict', (m, t) => m.sanitizeProse(t, opts('strict')), false],
  ['stripDangerousInvisibles', (m, t) => m.stripDangerousInvisibles(t), true],
  ['deriveFenceToken', (m, t) => m.deriveFenceToken(t), true],
];
const SIDES = [
  ['wasm', wasm],
  ['native', native],
  ['js-reference', reference],
];

function cpu() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const rows = [];
for (const kind of ['ascii', 'mixed', 'dirty']) {
  const texts = Array.from({ length: TEXTS }, () => text(kind));
  for (const [name, run, hasReference] of CASES) {
    const sides = SIDES.filter(([side]) => side !== 'js-reference' || hasReference);
    // Same answers on every side, before anything is timed.
    for (const t of texts.slice(0, 2)) {
      const want = run(native, t);
      for (const [side, m] of sides) {
        if (run(m, t) !== want) throw new Error(`${side} differs from native on ${name} (${kind})`);
      }
    }
    const ms = new Map(sides.map(([side]) => [side, 0]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < sides.length; k++) {
        const [side, m] = sides[(round + k) % sides.length];
        const start = cpu();
        for (const t of texts) run(m, t);
        ms.set(side, ms.get(side) + cpu() - start);
      }
    }
    const mb = (TEXTS * ROUNDS * SIZE) / 1e6;
    const rate = Object.fromEntries([...ms].map(([side, t]) => [side, mb / (t / 1000)]));
    rows.push({ kind, name, rate });
  }
}

const fmt = (x) => (x === undefined ? '—' : x.toFixed(0).padStart(6));
console.log(`64 KiB strings, ${TEXTS} texts x ${ROUNDS} rounds per side, MB/s of UTF-8 input (process CPU time)`);
console.log('text   operation                  wasm  native  js-ref  wasm/native  wasm/js-ref');
for (const { kind, name, rate } of rows) {
  const vsNative = (rate.wasm / rate.native).toFixed(2);
  const vsRef = rate['js-reference'] === undefined ? '—' : (rate.wasm / rate['js-reference']).toFixed(2);
  console.log(
    `${kind.padEnd(6)} ${name.padEnd(25)} ${fmt(rate.wasm)} ${fmt(rate.native)}  ${fmt(rate['js-reference'])}  ${vsNative.padStart(11)}  ${vsRef.padStart(11)}`,
  );
}
