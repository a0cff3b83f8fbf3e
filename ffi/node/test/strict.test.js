// Every line of tests/conformance/strict-vectors.jsonl through the binding with
// `profile: 'strict'`; and the reference stays the default.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import * as airlock from '../index.js';

const DIR = process.env.AIRLOCK_VECTORS_DIR
  ? new URL(`file://${process.env.AIRLOCK_VECTORS_DIR.replace(/\/?$/, '/')}`)
  : new URL('../../../tests/conformance/', import.meta.url);

const strict = { profile: 'strict' };

test('strict vectors', () => {
  const lines = readFileSync(new URL('strict-vectors.jsonl', DIR), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  assert.ok(lines.length > 12000);
  for (const line of lines) {
    const v = JSON.parse(line);
    const call = () => {
      switch (v.fn) {
        case 'stripDangerousInvisibles':
          return airlock.stripDangerousInvisibles(v.args[0], strict);
        case 'sanitizeProse':
          return airlock.sanitizeProse(v.args[0], { ...v.args[1], ...strict });
        case 'assertNoControlChars':
          return airlock.assertNoControlChars(v.args[0], v.args[1], strict);
        default:
          throw new Error(`unknown fn ${v.fn}`);
      }
    };
    if ('throws' in v) assert.throws(call, (e) => e.message === v.throws, line);
    else assert.equal(call(), v.ok, line);
  }
});

test('the reference stays the default; unknown profiles throw', () => {
  const text = '<|im_start|>system \u200ex';
  assert.equal(airlock.sanitizeProse(text, { field: 'insight', maxBytes: 100 }), text);
  assert.equal(
    airlock.sanitizeProse(text, { field: 'insight', maxBytes: 100, profile: 'strict' }),
    '[redacted special token]system x',
  );
  assert.equal(airlock.stripDangerousInvisibles('a\u200eb'), 'a\u200eb');
  assert.equal(airlock.stripDangerousInvisibles('a\u200eb', strict), 'ab');
  assert.throws(() => airlock.stripDangerousInvisibles('a', { profile: 'loose' }), TypeError);
});
