// Two or more builds of libairlock against each other in one process (BENCHMARKS.md,
// "third round"): the same binding over each library, alternating batches on the
// same fresh strings (interleaved.mjs's prose), process CPU time per call. What an
// A/B of a library change needs on a shared machine: the load falls on every side
// alike. Reports only.
//
//   [ROUNDS=N] node bench/ab.mjs sanitize|fence mixed|dirty|latin|cjk BYTES LIB_A.so LIB_B.so [...]
//
// latin and cjk are the same prose with every word in Spanish-like accented Latin
// (two UTF-8 bytes a letter) or in CJK (three): the converter's other two ways.

import { createAirlock } from '../index.js';

const [op, kind, bytesArg, ...libs] = process.argv.slice(2);
const bytes = Number(bytesArg);
if (!['sanitize', 'fence'].includes(op) || !['mixed', 'dirty', 'latin', 'cjk'].includes(kind) || !(bytes > 0) || libs.length < 2) {
  console.error('usage: node bench/ab.mjs sanitize|fence mixed|dirty|latin|cjk BYTES LIB_A.so LIB_B.so [...]');
  process.exit(2);
}

// xorshift32 and the word lists of interleaved.mjs, so both measure the same prose.
let state = 0x9e3779b9;
function rand(n) {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state % n;
}
const WORDS = 'the gate is not evidence run suite twice before trusting it flaky tests hide in integration and survive source of truth'.split(' ');
const ODD = {
  mixed: ['—', '“quoted”', '…', 'café', 'naïve', '€12', '日本語', '😀', '’s', 'señor'],
  dirty: ['—', '“quoted”', '…', 'café', 'naïve', '€12', '日本語', '😀\uFE0F', 'a\u200bb', '\u0007', '’s'],
};
ODD.latin = ODD.mixed;
ODD.cjk = ODD.mixed;
const LATIN = 'él está aquí según niño año corazón señal útil país también después über größe français';
const CJK = '日本語 中文 한국어 測試 安全 文字 検査 規則 学習 記録 信頼 境界';
if (kind === 'latin' || kind === 'cjk') WORDS.splice(0, WORDS.length, ...(kind === 'latin' ? LATIN : CJK).split(' '));
const widths = new Map();
const width = (w) => {
  let n = widths.get(w);
  if (n === undefined) widths.set(w, (n = Buffer.byteLength(w)));
  return n;
};
/** A flat string of at most `bytes` UTF-8 bytes. */
function prose() {
  const parts = [];
  let len = 0;
  for (;;) {
    const odd = ODD[kind];
    const w = rand(14) === 0 ? odd[rand(odd.length)] : WORDS[rand(WORDS.length)];
    if (len + width(w) + 3 > bytes) break;
    parts.push(w);
    len += width(w) + 1;
    if (rand(20) === 0) {
      parts.push('\n');
      len += 2;
    }
  }
  return Buffer.from(parts.join(' '), 'utf16le').ucs2Slice();
}

const inputs = Array.from({ length: Math.max(64, Math.min(2048, Math.floor((8 << 20) / bytes))) }, prose);
const opts = { field: 'insight', maxBytes: bytes };
const sides = libs.map((library) => {
  const b = createAirlock({ library });
  return op === 'sanitize' ? (s) => b.sanitizeProse(s, opts) : (s) => b.deriveFenceToken(s);
});
for (const s of inputs.slice(0, 32)) {
  const want = sides[0](s);
  for (const [k, f] of sides.entries()) if (f(s) !== want) throw new Error(`${libs[k]} disagrees with ${libs[0]}`);
}
const batch = Math.max(16, Math.floor((1 << 20) / bytes));
// ROUNDS=300 in the environment resolves a few per cent on a loaded machine.
const ROUNDS = Number(process.env.ROUNDS) || 40;
const total = sides.map(() => 0);
let sink = 0;
let at = 0;
for (let r = 0; r <= ROUNDS; r++) {
  const slice = [];
  for (let i = 0; i < batch; i++) slice.push(inputs[(at + i) % inputs.length]);
  at = (at + batch) % inputs.length;
  const order = sides.map((_, i) => (r % 2 === 0 ? i : sides.length - 1 - i));
  for (const k of order) {
    const c0 = process.cpuUsage();
    for (const s of slice) sink ^= sides[k](s).length;
    const c = process.cpuUsage(c0);
    if (r > 0) total[k] += c.user + c.system; // round 0 warms up
  }
}
const perCall = total.map((t) => t / (ROUNDS * batch));
console.log(
  `node ${process.version} ${op} ${kind} ${bytes} B, ${ROUNDS} rounds of ${batch}: ` +
    libs.map((l, k) => `${l} ${perCall[k].toFixed(1)} µs`).join(', ') +
    (sink === 0.5 ? ' ' : ''),
);
