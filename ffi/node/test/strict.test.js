// Every line of tests/conformance/strict-vectors.jsonl through the binding with
// `profile: 'strict'`; and the reference stays the default.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { STRICT_FILE, checkStrictVectors, implementation, vectorLines } from './vectors.js';

const airlock = await implementation();

const DIR = process.env.AIRLOCK_VECTORS_DIR
  ? new URL(`file://${process.env.AIRLOCK_VECTORS_DIR.replace(/\/?$/, '/')}`)
  : new URL('../../../tests/conformance/', import.meta.url);

const strict = { profile: 'strict' };

test('strict vectors', () => {
  const lines = vectorLines(STRICT_FILE, readFileSync(new URL(STRICT_FILE, DIR), 'utf8'));
  assert.ok(lines.length > 12000);
  const { ran, failures } = checkStrictVectors(airlock, lines);
  // Kinds another layer added (glob, description checks) are not this one's.
  assert.ok(ran > 12000, `${ran} vectors of a kind this layer runs`);
  assert.deepStrictEqual(failures.slice(0, 20), [], `${failures.length} of ${ran} strict vectors fail`);
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

test('strict glob and description checks', () => {
  for (const check of [airlock.assertSafeGlob, airlock.assertSafeDescription]) {
    assert.equal(check('src/\u200e*.rs'), 'src/\u200e*.rs');
    assert.throws(() => check('src/\u200e*.rs', strict), /U\+200E/);
    assert.equal(check('src/**/*.rs', strict), 'src/**/*.rs');
    // A conjunct joiner after a virama spells: kept, so accepted.
    assert.equal(check('\u0915\u094d\u200d\u0937', strict), '\u0915\u094d\u200d\u0937');
    assert.throws(() => check('x', { profile: 'loose' }), TypeError);
  }
  // The strict description finds forgery literals on the folded view.
  const folded = 'see \uff1c/APPLICABLE-RULES\uff1e';
  assert.equal(airlock.assertSafeDescription(folded), folded);
  assert.throws(() => airlock.assertSafeDescription(folded, strict), /APPLICABLE-RULES/);
  // The reference's rejections are unchanged under strict.
  let reference;
  try {
    airlock.assertSafeGlob('a"b');
  } catch (e) {
    reference = e.message;
  }
  assert.throws(() => airlock.assertSafeGlob('a"b', strict), (e) => e.message === reference);
  assert.throws(() => airlock.assertSafeGlob('', strict), /non-empty/);
});

test('strict reads lone surrogates as U+FFFD, in every function', () => {
  // The reference keeps lone surrogates (sanitize.mjs works on UTF-16); strict has no
  // JavaScript original and gives the bytes every other layer gives: U+FFFD, so two
  // halves never pair into a new code point across what strict removes.
  const lone = 'a\ud800\u200b\udc00b';
  // The reference, as sanitize.mjs on UTF-16: the halves meet once ZWSP goes.
  assert.equal(airlock.stripDangerousInvisibles(lone), 'a\u{10000}b');
  assert.equal(airlock.stripDangerousInvisibles(lone, strict), 'a\ufffd\ufffdb');
  assert.equal(
    airlock.sanitizeProse(lone, { field: 'insight', maxBytes: 100, profile: 'strict' }),
    'a\ufffd\ufffdb',
  );
  assert.equal(airlock.assertNoControlChars('x\udfff', 'k', strict), 'x\udfff');
  assert.equal(airlock.assertSafeGlob('x\udfff', strict), 'x\udfff');
});
