// Per-call time and throughput of sanitizeProse and stripDangerousInvisibles at
// 64 B, 2 KiB, 64 KiB and 1 MiB: airlock (the binding), the raw C call under it
// (pre-encoded input, no string conversion), and the JavaScript reference.
//
//   node bench/bench.mjs [--quick]

import koffi from 'koffi';

import { defaultAirlock, sanitizeProse, stripDangerousInvisibles } from '../index.js';
import * as reference from './reference.mjs';

const QUICK = process.argv.includes('--quick');
const BUDGET_MS = QUICK ? 100 : 400;

// Prose as agents write it: mostly ASCII, some non-ASCII, a few invisibles to strip.
const PARAGRAPH =
  'A green gate is not evidence — CI is the source of truth. Run the suite twice\u200b before trusting it; ' +
  'flaky tests hide in `tests/integration/*.rs` and café-style Unicode (naïve, 😀\uFE0F) must survive.\n';

function sample(bytes) {
  let s = '';
  while (Buffer.byteLength(s) < bytes) s += PARAGRAPH;
  // Cut on a code point boundary to the exact size.
  const b = Buffer.from(s).subarray(0, bytes);
  let text = b.toString('utf8');
  while (Buffer.byteLength(text) > bytes || text.endsWith('\uFFFD')) text = text.slice(0, -1);
  return text;
}

function measure(fn) {
  // Warm up, then run batches until the time budget is spent.
  for (let i = 0; i < 20; i++) fn();
  let calls = 0;
  let batch = 1;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  const budget = BigInt(BUDGET_MS) * 1_000_000n;
  while (elapsed < budget) {
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    elapsed = process.hrtime.bigint() - start;
    if (batch < 1 << 16) batch *= 2;
  }
  return Number(elapsed) / calls; // ns per call
}

// The raw C call, for the binding's own cost: input encoded once, output not decoded.
const lib = koffi.load(defaultAirlock().libraryPath);
const cSanitize = lib.func(
  'uint32_t airlock_sanitize_prose(const void *text, size_t text_len, const void *field, size_t field_len, size_t max_bytes, void *out, size_t out_cap, void *out_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
);
const cStrip = lib.func(
  'uint32_t airlock_strip(const void *text, size_t text_len, void *out, size_t out_cap, void *out_len, void *err_offset)',
);

function fmt(ns) {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

function rate(bytes, ns) {
  const mibs = bytes / (1024 * 1024) / (ns / 1e9);
  return mibs >= 100 ? `${mibs.toFixed(0)} MiB/s` : `${mibs.toFixed(1)} MiB/s`;
}

const SIZES = [
  ['64 B', 64],
  ['2 KiB', 2048],
  ['64 KiB', 64 * 1024],
  ['1 MiB', 1024 * 1024],
];

console.log(`node ${process.version}, libairlock ${defaultAirlock().version} (${defaultAirlock().libraryPath})`);
console.log('');
const header = ['op', 'size', 'airlock', 'raw C call', 'JS reference', 'airlock thrpt', 'JS thrpt', 'speed-up'];
const rows = [header];
for (const [label, bytes] of SIZES) {
  const text = sample(bytes);
  const input = Buffer.from(text);
  const field = Buffer.from('insight');
  const out = Buffer.alloc(input.length * 2 + 256);
  const lens = Buffer.alloc(32);
  const opts = { field: 'insight', maxBytes: bytes };

  if (sanitizeProse(text, opts) !== reference.sanitizeProse(text, opts)) throw new Error('sanitizeProse disagrees');
  if (stripDangerousInvisibles(text) !== reference.stripDangerousInvisibles(text)) throw new Error('strip disagrees');

  const cases = [
    [
      'sanitizeProse',
      () => sanitizeProse(text, opts),
      () => cSanitize(input, input.length, field, field.length, bytes, out, out.length, lens, null, 0, null, null),
      () => reference.sanitizeProse(text, opts),
    ],
    [
      'stripDangerousInvisibles',
      () => stripDangerousInvisibles(text),
      () => cStrip(input, input.length, out, out.length, lens, null),
      () => reference.stripDangerousInvisibles(text),
    ],
  ];
  for (const [op, ours, raw, js] of cases) {
    const a = measure(ours);
    const c = measure(raw);
    const r = measure(js);
    rows.push([op, label, fmt(a), fmt(c), fmt(r), rate(bytes, a), rate(bytes, r), `${(r / a).toFixed(1)}×`]);
  }
}

const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const row of rows) console.log(row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
