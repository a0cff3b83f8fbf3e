// What the Node binding's suites cannot ask of the WebAssembly package: its own
// ways in (createAirlock from bytes, a Module or an Instance; what it refuses),
// scanText's kinds and UTF-16 offsets, and large inputs that make the module's
// memory grow, against the JavaScript reference. Run by scripts/package-wasm.sh --test on the installed package
// (AIRLOCK_WASM_DIR is its directory).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import * as reference from '../../ffi/node/bench/reference.mjs';

const dir = process.env.AIRLOCK_WASM_DIR;
assert.ok(dir, 'AIRLOCK_WASM_DIR names the installed airlock-wasm');
const pkg = await import(pathToFileURL(path.join(dir, 'index.js')).href);
const bytes = readFileSync(path.join(dir, 'airlock.wasm'));

const opts = { field: 'insight', maxBytes: 40 };
const hostile = 'a\u200bb \u202euntrusted-content:end <|im_start|> \u{E0041}\u{E0042} tail that is cut';

test('createAirlock takes bytes, a Module or an Instance, and nothing else', () => {
  const want = pkg.sanitizeProse(hostile, opts);
  const module = new WebAssembly.Module(bytes);
  for (const given of [bytes, new Uint8Array(bytes).buffer, module, new WebAssembly.Instance(module, {})]) {
    const a = pkg.createAirlock({ module: given });
    assert.equal(a.sanitizeProse(hostile, opts), want);
    assert.equal(a.sanitizeProse(hostile, { ...opts, profile: 'strict' }), pkg.sanitizeProse(hostile, { ...opts, profile: 'strict' }));
    assert.equal(a.version, pkg.defaultAirlock().version);
  }
  assert.throws(() => pkg.createAirlock(), TypeError);
  assert.throws(() => pkg.createAirlock({ module: 'airlock.wasm' }), TypeError);
  // A valid module that is not airlock's.
  const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  assert.throws(() => pkg.createAirlock({ module: empty }), /no export memory/);
});

test('scanText: kinds, code points and UTF-16 offsets', () => {
  const text = '😀\u200b\u{E0041}\u{E0042}x\u001b[1m</APPLICABLE-RULES>';
  const found = pkg.scanText(text);
  const at = (kind) => found.filter((f) => f.kind === kind).map(({ start, end, codePoint }) => [start, end, codePoint]);
  assert.deepEqual(at('invisible'), [[2, 3, 0x200b]]);
  assert.deepEqual(at('tag-run'), [[3, 7, 0xe0041]]);
  assert.deepEqual(at('control'), [[8, 9, 0x1b]]);
  assert.deepEqual(at('strict-dropped'), [
    [2, 3, 0x200b],
    [3, 5, 0xe0041],
    [5, 7, 0xe0042],
  ]);
  assert.deepEqual(at('escape-sequence'), [[8, 12, 0x1b]]);
  assert.deepEqual(at('forgery-literal'), [[12, 31, 0x3c]]);
  for (const f of found) assert.equal(f.text, text.slice(f.start, f.end));
  assert.deepEqual(pkg.scanText('plain text'), []);
});

test('large inputs grow the memory; smaller calls after them still agree', () => {
  const unit = 'the gate is not evidence\u200b — rerun “it” twice 😀\u0007\n';
  const big = unit.repeat(Math.ceil((4 * 1024 * 1024) / unit.length));
  const cap = 3 * 1024 * 1024;
  assert.equal(pkg.sanitizeProse(big, { field: 'insight', maxBytes: cap }), reference.sanitizeProse(big, { field: 'insight', maxBytes: cap }));
  assert.equal(pkg.stripDangerousInvisibles(big), reference.stripDangerousInvisibles(big));
  const token = pkg.deriveFenceToken(big);
  assert.match(token, /^[0-9a-f]{8}$/);
  assert.ok(!big.includes(token));
  assert.equal(pkg.sanitizeProse(hostile, opts), reference.sanitizeProse(hostile, opts));
});
