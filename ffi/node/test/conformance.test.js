// Every line of the conformance vectors through the binding, byte-identical.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import * as airlock from '../index.js';

const VECTORS = new URL('../../../tests/conformance/reference-vectors.jsonl', import.meta.url);

// split('\n') only: a line may hold U+2028/U+2029, which some splitters break on.
const lines = readFileSync(VECTORS, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');

const PATTERNS = {
  HOST_CLASS_RE: airlock.HOST_CLASS_RE,
  LEARNING_KEY_RE: airlock.LEARNING_KEY_RE,
  EXPIRES_AT_RE: airlock.EXPIRES_AT_RE,
  PROVENANCE_TOKEN_RE: airlock.PROVENANCE_TOKEN_RE,
};

function args(vector) {
  if (vector.fn !== 'assertMachineToken') return vector.args;
  const [value, { field, pattern }] = vector.args;
  assert.ok(pattern in PATTERNS, `unknown pattern ${pattern}`);
  return [value, { field, pattern: PATTERNS[pattern] }];
}

test('the vector file is read whole', () => {
  assert.ok(lines.length >= 1600, `only ${lines.length} vectors`);
});

test('every conformance vector', () => {
  const failures = [];
  for (const [i, line] of lines.entries()) {
    const vector = JSON.parse(line);
    const fn = airlock[vector.fn];
    assert.equal(typeof fn, 'function', `no export ${vector.fn}`);
    try {
      let got;
      try {
        got = fn(...args(vector));
      } catch (err) {
        assert.ok('throws' in vector, `line ${i + 1}: threw ${err.message}`);
        assert.ok(err instanceof Error, `line ${i + 1}: not an Error`);
        assert.equal(Object.getPrototypeOf(err), Error.prototype, `line ${i + 1}: not a plain Error`);
        assert.strictEqual(err.message, vector.throws, `line ${i + 1}`);
        continue;
      }
      assert.ok('ok' in vector, `line ${i + 1}: returned, expected a throw of ${vector.throws}`);
      const want = vector.ok;
      if (vector.fn === 'assertNoWrapperForgery') {
        assert.strictEqual(want, null);
        assert.strictEqual(got, undefined, `line ${i + 1}`);
      } else if (vector.fn === 'parseGlobsFrontmatter') {
        assert.deepStrictEqual(got, want, `line ${i + 1}`);
        assert.deepStrictEqual(Object.keys(got.meta), Object.keys(want.meta), `line ${i + 1}: key order`);
      } else {
        assert.deepStrictEqual(got, want, `line ${i + 1}`);
      }
    } catch (err) {
      failures.push(`${vector.fn}: ${err.message.slice(0, 600)}`);
    }
  }
  assert.deepStrictEqual(failures.slice(0, 20), [], `${failures.length} of ${lines.length} vectors fail`);
});
