// Every line of the conformance vectors through the binding, byte-identical: the
// files every layer runs, and node-vectors.jsonl, the JavaScript-only inputs (lone
// surrogates, values that are not strings).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import * as airlock from '../index.js';

// AIRLOCK_VECTORS_DIR: where the vectors are when this suite runs from an installed
// copy of the package (scripts/package-node.sh's install test).
const DIR = process.env.AIRLOCK_VECTORS_DIR
  ? new URL(`file://${process.env.AIRLOCK_VECTORS_DIR.replace(/\/?$/, '/')}`)
  : new URL('../../../tests/conformance/', import.meta.url);
const FILES = ['reference-vectors.jsonl', 'gate-3.21-vectors.jsonl', 'edge-vectors.jsonl', 'node-vectors.jsonl'];

// split('\n') only: a line may hold U+2028/U+2029, which some splitters break on.
const lines = FILES.flatMap((file) =>
  readFileSync(new URL(file, DIR), 'utf8')
    .split('\n')
    .map((line, i) => ({ line, where: `${file}:${i + 1}` }))
    .filter(({ line }) => line.trim() !== ''),
);

const PATTERNS = {
  HOST_CLASS_RE: airlock.HOST_CLASS_RE,
  LEARNING_KEY_RE: airlock.LEARNING_KEY_RE,
  EXPIRES_AT_RE: airlock.EXPIRES_AT_RE,
  PROVENANCE_TOKEN_RE: airlock.PROVENANCE_TOKEN_RE,
};

function args(vector) {
  if (vector.gate !== undefined) return [...vector.args, { gate: vector.gate }];
  if (vector.fn !== 'assertMachineToken') return vector.args;
  const [value, { field, pattern }] = vector.args;
  assert.ok(pattern in PATTERNS, `unknown pattern ${pattern}`);
  return [value, { field, pattern: PATTERNS[pattern] }];
}

test('the vector files are read whole', () => {
  assert.ok(lines.length >= 1900, `only ${lines.length} vectors`);
  assert.ok(lines.filter(({ line }) => line.includes('"gate":"3.21"')).length >= 153);
});

test('every conformance vector', () => {
  const failures = [];
  for (const { line, where } of lines) {
    const vector = JSON.parse(line);
    const fn = airlock[vector.fn];
    assert.equal(typeof fn, 'function', `no export ${vector.fn}`);
    try {
      let got;
      try {
        got = fn(...args(vector));
      } catch (err) {
        if ('throwsType' in vector) {
          // The reference's own TypeError (V8 words it; only the type is the contract).
          assert.equal(err.constructor.name, vector.throwsType, `${where}: threw ${err}`);
          continue;
        }
        assert.ok('throws' in vector, `${where}: threw ${err.message}`);
        assert.ok(err instanceof Error, `${where}: not an Error`);
        assert.equal(Object.getPrototypeOf(err), Error.prototype, `${where}: not a plain Error`);
        assert.strictEqual(err.message, vector.throws, where);
        continue;
      }
      assert.ok('ok' in vector, `${where}: returned, expected a throw of ${vector.throws}`);
      const want = vector.ok;
      if (vector.fn === 'assertNoWrapperForgery') {
        assert.strictEqual(want, null);
        assert.strictEqual(got, undefined, where);
      } else if (vector.fn === 'parseGlobsFrontmatter') {
        // As JSON, the vectors' own form: the reference's `-0` is written `0` there.
        assert.deepStrictEqual(JSON.parse(JSON.stringify(got)), want, where);
        assert.deepStrictEqual(Object.keys(got.meta), Object.keys(want.meta), `${where}: key order`);
      } else {
        assert.deepStrictEqual(got, want, where);
      }
    } catch (err) {
      failures.push(`${vector.fn}: ${err.message.slice(0, 600)}`);
    }
  }
  assert.deepStrictEqual(failures.slice(0, 20), [], `${failures.length} of ${lines.length} vectors fail`);
});
