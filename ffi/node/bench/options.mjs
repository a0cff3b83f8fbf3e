// The measurements behind the UTF-16 path's choices (BENCHMARKS.md, "options
// measured"): what each way of moving a string across costs in V8, and what koffi
// charges per call for each calling convention. Reports only.
//
//   node bench/options.mjs

import koffi from 'koffi';

import { defaultAirlock } from '../index.js';

const TWO = 'A green gate is not evidence — CI is the source of truth; “flaky” tests hide in café-style Unicode (naïve, 😀) …\n';
const ONE = 'A green gate is not evidence - CI is the source of truth; "flaky" tests hide in cafe-style text (naïve, ÿ) ...\n';

/** Distinct flat strings of `chars` code units. */
function pool(unit, chars) {
  const out = [];
  for (let i = 0; i < 64; i++) {
    let s = `${i}:`;
    while (s.length < chars) s += unit;
    out.push(Buffer.from(s.slice(0, chars), 'utf16le').ucs2Slice());
  }
  return out;
}

function ns(fn, inputs) {
  for (let i = 0; i < 200; i++) fn(inputs[i % inputs.length]);
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const n = Math.max(200, Math.floor(2e7 / (inputs[0].length + 64)));
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(inputs[i % inputs.length]);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n);
  }
  return best;
}

const buf = Buffer.allocUnsafeSlow(1 << 22);
console.log(`node ${process.version}: ns per call (best of 5), strings of N code units`);
console.log('| what | one-byte 64 | two-byte 64 | one-byte 2048 | two-byte 2048 | one-byte 65536 | two-byte 65536 |');
console.log('|---|---|---|---|---|---|---|');
const sets = [];
for (const chars of [64, 2048, 65536]) sets.push(pool(ONE, chars), pool(TWO, chars));
const rows = [
  ['in: `utf8Write` (V8 transcodes)', (s) => buf.utf8Write(s, 0)],
  ['in: `ucs2Write` (UTF-16 units)', (s) => buf.ucs2Write(s, 0)],
  ['in: `latin1Write` (lossy for two-byte)', (s) => buf.latin1Write(s, 0)],
  ['in: `latin1Write` + check `latin1Slice === s`', (s) => buf.latin1Slice(0, buf.latin1Write(s, 0)) === s],
  ['check: `Buffer.byteLength(s, "utf8") === s.length`', (s) => Buffer.byteLength(s, 'utf8') === s.length],
];
for (const [label, fn] of rows) console.log(`| ${label} | ${sets.map((p) => ns(fn, p).toFixed(0)).join(' | ')} |`);
const outs = [
  ['out: `utf8Slice` (V8 transcodes)', 'utf8', (b) => b.utf8Slice(0, b.length)],
  ['out: `ucs2Slice`', 'utf16le', (b) => b.ucs2Slice(0, b.length)],
  ['out: `latin1Slice` (one-byte results)', 'latin1', (b) => b.latin1Slice(0, b.length)],
  ['out: `toString("utf16le")`', 'utf16le', (b) => b.toString('utf16le', 0, b.length)],
  ...(typeof Buffer.prototype.utf16leSlice === 'function'
    ? [['out: `utf16leSlice`', 'utf16le', (b) => b.utf16leSlice(0, b.length)]]
    : []),
  ['out: `TextDecoder("utf-16le")`', 'utf16le', (b) => utf16Decoder.decode(b)],
  [
    'out: `String.fromCharCode.apply` on a Uint16Array',
    'utf16le',
    (b) => String.fromCharCode.apply(null, new Uint16Array(b.buffer, b.byteOffset, b.length / 2)),
  ],
];
const utf16Decoder = new TextDecoder('utf-16le');
for (const [label, enc, fn] of outs) {
  // Buffers of their own (aligned, as `Uint16Array` needs for the last row).
  const bufs = sets.map((p) => p.map((s) => Buffer.from(Buffer.from(s, enc))));
  const cell = (p) => {
    try {
      return ns(fn, p).toFixed(0);
    } catch (e) {
      return e.constructor.name; // e.g. too many arguments for `apply`
    }
  };
  console.log(`| ${label} | ${bufs.map(cell).join(' | ')} |`);
}

const lib = koffi.load(defaultAirlock().libraryPath);
const a = Number(koffi.address(buf));
const calls = [
  ['`size_t f(size_t, size_t)`', lib.func('size_t airlock_worst_case_len(size_t, size_t)'), () => [10, 20]],
  [
    '12 arguments, pointers as `void *` from numbers',
    lib.func(
      'uint32_t airlock_sanitize_prose(const void *, size_t, const void *, size_t, size_t, void *, size_t, void *, void *, size_t, void *, void *)',
    ),
    () => [a, 0, a, 0, 10, a + 1000, 100, a + 8, 0, 0, 0, 0],
  ],
  [
    '12 arguments, pointers as Buffers',
    lib.func(
      'uint32_t airlock_sanitize_prose(const void *, size_t, const void *, size_t, size_t, void *, size_t, void *, void *, size_t, void *, void *)',
    ),
    () => [buf, 0, buf, 0, 10, buf.subarray(1000), 100, buf.subarray(8), null, 0, null, null],
  ],
  [
    '12 arguments, pointers as `uintptr_t` numbers',
    lib.func(
      'uint32_t airlock_sanitize_prose(uintptr_t, size_t, uintptr_t, size_t, size_t, uintptr_t, size_t, uintptr_t, uintptr_t, size_t, uintptr_t, uintptr_t)',
    ),
    () => [a, 0, a, 0, 10, a + 1000, 100, a + 8, 0, 0, 0, 0],
  ],
];
console.log('');
console.log('| koffi call (empty input) | ns |');
console.log('|---|---|');
for (const [label, fn, args] of calls) {
  const v = args();
  console.log(`| ${label} | ${ns(() => fn(...v), [[0]]).toFixed(0)} |`);
}
