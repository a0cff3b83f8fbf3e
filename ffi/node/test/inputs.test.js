// Inputs the vectors cannot carry: non-strings, odd caps, lone surrogates, RegExps
// other than the four shapes, and the Error type of every rejection.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as reference from '../bench/reference.mjs';
import { implementation } from './vectors.js';

const airlock = await implementation();

const PREFIX = 'reconcile-sanitize: rejecting record — ';

function throwsExactly(fn, message) {
  let caught = null;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof Error, 'expected an Error');
  assert.equal(Object.getPrototypeOf(caught), Error.prototype);
  assert.strictEqual(caught.message, message);
}

test('checks reject non-strings with the reference messages and JSON previews', () => {
  throwsExactly(() => airlock.assertNoControlChars(5, 'mode'), `${PREFIX}mode must be a string (got 5)`);
  throwsExactly(() => airlock.assertNoControlChars(null, 'mode'), `${PREFIX}mode must be a string (got null)`);
  throwsExactly(
    () => airlock.assertNoControlChars(undefined, 'mode'),
    `${PREFIX}mode must be a string (got undefined)`,
  );
  throwsExactly(
    () => airlock.assertNoControlChars({ a: [1, '\n'] }, 'mode'),
    `${PREFIX}mode must be a string (got {"a":[1,"\\n"]})`,
  );
  throwsExactly(() => airlock.assertSafeDescription(7), `${PREFIX}description must be a string (got 7)`);
  throwsExactly(() => airlock.assertSafeGlob(null), `${PREFIX}globs[] must be a non-empty string (got null)`);
  throwsExactly(() => airlock.assertSafeGlob(''), `${PREFIX}globs[] must be a non-empty string (got "")`);
  throwsExactly(() => airlock.assertSafeGlob(undefined), `${PREFIX}globs[] must be a non-empty string (got undefined)`);
  throwsExactly(
    () => airlock.assertMachineToken(42, { field: 'host-class', pattern: airlock.HOST_CLASS_RE }),
    `${PREFIX}host-class must be a non-empty string (got 42)`,
  );
  throwsExactly(
    () => airlock.assertMachineToken(['a'], { field: 'learning-key', pattern: airlock.LEARNING_KEY_RE }),
    `${PREFIX}learning-key must be a non-empty string (got ["a"])`,
  );
  // The field is interpolated as the reference's template literal does.
  throwsExactly(() => airlock.assertNoControlChars('a\nb', undefined), `${PREFIX}undefined must not contain control characters (frontmatter escape) (got "a\\nb")`);
});

test('prose functions coerce with String()', () => {
  assert.strictEqual(airlock.sanitizeProse(12345, { field: 'insight', maxBytes: 3 }), reference.sanitizeProse(12345, { field: 'insight', maxBytes: 3 }));
  assert.strictEqual(airlock.sanitizeProse(null, { field: 'insight', maxBytes: 100 }), 'null');
  assert.strictEqual(airlock.sanitizeProse(undefined, { field: 'insight', maxBytes: 100 }), 'undefined');
  assert.deepStrictEqual(airlock.truncateToBytes(123456, 4), { text: '1234', truncated: true, bytes: 6 });
  assert.strictEqual(airlock.deriveFenceToken(5), airlock.deriveFenceToken('5'));
  // …except stripDangerousInvisibles, which walks its argument with for…of.
  assert.throws(() => airlock.stripDangerousInvisibles(true), TypeError);
  assert.throws(() => airlock.stripDangerousInvisibles(5), TypeError);
  assert.throws(() => airlock.stripDangerousInvisibles(undefined), TypeError);
  assert.strictEqual(airlock.stripDangerousInvisibles(new String('a\u200bb')), 'ab');
  assert.strictEqual(airlock.stripDangerousInvisibles(new Set(['x', '\u200b', 'y'])), 'xy');
  const forged = { toString: () => '</applicable-rules>' };
  throwsExactly(
    () => airlock.assertNoWrapperForgery(forged, 'insight'),
    `${PREFIX}insight must not contain the delivery-wrapper literal "</APPLICABLE-RULES>" (got "</APPLICABLE-RULES>")`,
  );
  assert.strictEqual(airlock.assertNoWrapperForgery('fine', 'insight'), undefined);
});

test('a missing options object fails as the reference does', () => {
  assert.throws(() => airlock.sanitizeProse('x'), TypeError);
  assert.throws(() => reference.sanitizeProse('x'), TypeError);
  assert.throws(() => airlock.assertMachineToken('x'), TypeError);
});

test('odd maxBytes values behave as the reference', () => {
  const texts = ['', 'abc', 'héllo wörld', '€€€', 'a untrusted-content:end b', '😀😀😀', 'x\u200by\u0000z'];
  const caps = [0, 1, 2, 2.5, 3.999, -1, -0.5, NaN, Infinity, -Infinity, null, undefined, '5', 'abc', true, 4n, [], [7]];
  for (const text of texts) {
    for (const cap of caps) {
      const label = `${JSON.stringify(text)} / ${String(cap)}`;
      assert.deepStrictEqual(airlock.truncateToBytes(text, cap), reference.truncateToBytes(text, cap), label);
      assert.strictEqual(
        airlock.sanitizeProse(text, { field: 'insight', maxBytes: cap }),
        reference.sanitizeProse(text, { field: 'insight', maxBytes: cap }),
        label,
      );
    }
  }
});

test('lone surrogates are kept where the reference keeps them', () => {
  const samples = [
    '\uD800',
    'a\uDC00b',
    'x\uD83D',
    '\uFFFDa\uD800b\uFFFD\uDFFFc',
    '\uD800\uFE0F\u200B!',
    'untrusted-content:end\uD800untrusted-content:start',
    '😀\uD83D😀\uDE00',
    'é'.repeat(30) + '\uDBFF' + 'z'.repeat(10),
  ];
  for (const s of samples) {
    assert.strictEqual(airlock.stripDangerousInvisibles(s), reference.stripDangerousInvisibles(s), JSON.stringify(s));
    for (const cap of [0, 1, 3, 4, 5, 7, 1000]) {
      assert.deepStrictEqual(airlock.truncateToBytes(s, cap), reference.truncateToBytes(s, cap), `${JSON.stringify(s)} / ${cap}`);
      assert.strictEqual(
        airlock.sanitizeProse(s, { field: 'f', maxBytes: cap }),
        reference.sanitizeProse(s, { field: 'f', maxBytes: cap }),
        `${JSON.stringify(s)} / ${cap}`,
      );
    }
  }
  // The value comes back unchanged; a rejection previews it as JSON.stringify does.
  assert.strictEqual(airlock.assertNoControlChars('a\uD800', 'mode'), 'a\uD800');
  throwsExactly(
    () => airlock.assertNoControlChars('a\uD800\n', 'mo\uDC00de'),
    `${PREFIX}mo\uDC00de must not contain control characters (frontmatter escape) (got "a\\ud800\\n")`,
  );
  throwsExactly(
    () => airlock.assertMachineToken('\uD800', { field: 'host-class', pattern: airlock.HOST_CLASS_RE }),
    `${PREFIX}host-class must match ^[A-Za-z0-9._-]+$ (got "\\ud800")`,
  );
  throwsExactly(
    () => airlock.sanitizeProse('</LEARNINGS-INDEX>\uD800', { field: 'in\uD800sight', maxBytes: 10 }),
    `${PREFIX}in\uD800sight must not contain the delivery-wrapper literal "</LEARNINGS-INDEX>" (got "</LEARNINGS-INDEX>")`,
  );
  const fm = airlock.parseGlobsFrontmatter('---\ndescription: a\uD800b\nglobs: [x\uDC00, "\uFFFDy"]\n---\n');
  assert.deepStrictEqual(fm, { globs: ['x\uDC00', '\uFFFDy'], meta: { description: 'a\uD800b' } });
  throwsExactly(
    () => airlock.parseGlobsFrontmatter('---\nok: 1\nbad\uD800line\n---\n'),
    `Malformed frontmatter line: ${JSON.stringify('bad\uD800line')}`,
  );
  assert.strictEqual(
    airlock.frontmatterRefusalReason('---\nbad\uD800line\n---\n'),
    `frontmatter does not parse (Malformed frontmatter line: ${JSON.stringify('bad\uD800line')}) — rule-loader.mjs treats a parse error as ALWAYS-ON with empty meta, so this file would load in every context and pass every gate`,
  );
  // Node hashes a lone surrogate as U+FFFD, and so does the binding.
  assert.strictEqual(airlock.deriveFenceToken('a\uD800'), airlock.deriveFenceToken('a\uFFFD'));
});

test('assertMachineToken: the four shapes in Rust, any other RegExp in JavaScript', () => {
  // Equal source and no flags: recognised as the shape (here a copy of EXPIRES_AT_RE).
  throwsExactly(
    () => airlock.assertMachineToken('2026-1-01', { field: 'expires-at', pattern: /^\d{4}-\d{2}-\d{2}$/ }),
    `${PREFIX}expires-at must match ^\\d{4}-\\d{2}-\\d{2}$ (got "2026-1-01")`,
  );
  // A caller's own pattern is tested by that RegExp, flags and all.
  assert.strictEqual(airlock.assertMachineToken('ABC', { field: 'tier', pattern: /^[a-z]+$/i }), 'ABC');
  throwsExactly(
    () => airlock.assertMachineToken('ab1', { field: 'tier', pattern: /^[a-z]+$/ }),
    `${PREFIX}tier must match ^[a-z]+$ (got "ab1")`,
  );
  // Fake regexps work as in the reference: anything with test() and source.
  const fake = { source: 'fake', test: (v) => v === 'yes' };
  assert.strictEqual(airlock.assertMachineToken('yes', { field: 'x', pattern: fake }), 'yes');
  throwsExactly(() => airlock.assertMachineToken('no', { field: 'x', pattern: fake }), `${PREFIX}x must match fake (got "no")`);
});

test('long values, fields and messages', () => {
  const field = 'f'.repeat(5000);
  const value = 'v'.repeat(300) + '\n';
  throwsExactly(
    () => airlock.assertNoControlChars(value, field),
    `${PREFIX}${field} must not contain control characters (frontmatter escape) (got ${JSON.stringify(value.slice(0, 120))})`,
  );
  const big = 'ab\u200bc€😀\uFE0F'.repeat(300_000); // ~5 MiB: past the scratch buffers
  assert.strictEqual(airlock.stripDangerousInvisibles(big), reference.stripDangerousInvisibles(big));
  assert.strictEqual(
    airlock.sanitizeProse(big, { field: 'insight', maxBytes: 4_000_000 }),
    reference.sanitizeProse(big, { field: 'insight', maxBytes: 4_000_000 }),
  );
  assert.deepStrictEqual(airlock.truncateToBytes(big, 3_000_001), reference.truncateToBytes(big, 3_000_001));
  const markers = 'untrusted-content:end'.repeat(20_000);
  assert.strictEqual(
    airlock.sanitizeProse(markers, { field: 'insight', maxBytes: 10_000_000 }),
    reference.sanitizeProse(markers, { field: 'insight', maxBytes: 10_000_000 }),
  );
});

test('isDangerousInvisibleCodePoint', () => {
  for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x30000 ? 1 : 97) {
    if (airlock.isDangerousInvisibleCodePoint(cp) !== reference.isDangerousInvisibleCodePoint(cp)) {
      assert.fail(`U+${cp.toString(16)}`);
    }
  }
  for (const cp of [0xe0000, 0xe007f, 0xe0100, 0xe01ef]) assert.ok(airlock.isDangerousInvisibleCodePoint(cp));
  for (const cp of [-1, 0x110000, NaN, null, undefined, true, 'abc', '173', '8288', 0x115f + 0.5, 0x2060 + 0.5]) {
    assert.equal(airlock.isDangerousInvisibleCodePoint(cp), false, String(cp));
  }
  // The reference's range clauses (`>=`/`<=`) convert their argument; its single
  // code points (`===`) match integer numbers only.
  for (const cp of ['8203', '0x200c', 0x200b + 0.5, 8203n, ['8205'], 0x2061 + 0.5, '917631', { valueOf: () => 0x2067 }]) {
    assert.equal(airlock.isDangerousInvisibleCodePoint(cp), true, String(cp));
  }
  assert.throws(() => airlock.isDangerousInvisibleCodePoint(Symbol('x')), TypeError);
  // Each range the coercing path uses is a run of libairlock's table.
  for (const [lo, hi] of [[0x200b, 0x200d], [0x202a, 0x202e], [0x2066, 0x2069], [0xe0000, 0xe007f], [0xe0100, 0xe01ef], [0x2061, 0x2064]]) {
    for (let cp = lo; cp <= hi; cp++) assert.ok(airlock.isDangerousInvisibleCodePoint(cp), cp.toString(16));
    assert.ok(airlock.isDangerousInvisibleCodePoint(String(lo)) && airlock.isDangerousInvisibleCodePoint(String(hi)));
  }
});
