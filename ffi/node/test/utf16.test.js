// The UTF-16 path (sanitizeProse, deriveFenceToken): strings cross as code units and
// come back as Latin-1, UTF-16 or the input itself. Checked against the JavaScript
// re-implementation of the reference (bench/reference.mjs), which walks UTF-16 as
// sanitize.mjs does: lone surrogates at every position, one-byte and two-byte
// strings, results that change and that do not, every cap.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as airlock from '../index.js';
import { bufferSize } from '../lib/airlock.js';
import * as reference from '../bench/reference.mjs';

function outcome(fn) {
  try {
    return { ok: fn() };
  } catch (err) {
    return { throws: err.message };
  }
}

function same(text, maxBytes, field = 'insight') {
  const opts = { field, maxBytes };
  const want = outcome(() => reference.sanitizeProse(text, opts));
  const got = outcome(() => airlock.sanitizeProse(text, opts));
  assert.deepEqual(got, want, `sanitizeProse(${JSON.stringify(text)}, ${maxBytes})`);
}

const LONE = ['\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00'];

test('a lone surrogate at every position, in one-byte and two-byte text, cut at every cap', () => {
  for (const base of ['abcdefghijklmnopqrstuvwxyz0123456789', 'café — “x” … 日本 😀 end of text!!']) {
    for (const lone of LONE) {
      for (let at = 0; at <= base.length; at++) {
        const text = base.slice(0, at) + lone + base.slice(at);
        same(text, 1000);
        if (at % 7 === 0) for (let cap = 0; cap < 50; cap += 3) same(text, cap);
      }
    }
  }
});

test('halves that the strip brings together pair up; others stay apart', () => {
  for (const between of ['\u200b', '\u0001', '\u200b\u0007\u202e', '\ufe0e', '\t', '\n', 'x', '\ufeff', '\u00ad']) {
    for (const [a, b] of [['\ud83d', '\ude00'], ['\ude00', '\ud83d'], ['\ud800', '\udc00'], ['\ud83d', '\ud83d']]) {
      for (const text of [`${a}${between}${b}`, `x${a}${between}${b}\ufe0f`, `${a}${between}${b}${a}${between}${b}`]) {
        for (const cap of [0, 2, 3, 4, 5, 7, 8, 100]) same(text, cap);
      }
    }
  }
});

test('one-byte and two-byte strings, changed or not, empty, line separators, BOM', () => {
  const texts = [
    '',
    'plain ascii',
    'latin-1 only: café naïve ÿ\u00a0',
    'latin-1 that changes:\u0007 café\u200b',
    'two-byte unchanged: — “quoted” … € 日本語',
    'two-byte that changes: —\u200b\u202e “x”',
    '\ufeffBOM first, \u2028 line, \u2029 paragraph, \u0085 NEL',
    'emoji 😀\ufe0f kept, \ufe0f orphan dropped, 👍🏽 and 🏳️‍🌈',
    'untrusted-content:start x UNTRUSTED-CONTENT:END',
    '\u0000\u0001\t\n\r\u007f\u009f',
    'a'.repeat(5000) + '\u200b' + 'é'.repeat(3000),
  ];
  for (const text of texts) {
    for (const cap of [0, 1, 10, 100, 2000, 100_000]) same(text, cap);
  }
  // The unchanged result is the very string passed in.
  const s = 'nothing to change — here';
  assert.equal(airlock.sanitizeProse(s, { field: 'insight', maxBytes: 1000 }), s);
});

test('rejections name the field, lone surrogates in it included', () => {
  for (const field of ['insight', 'f\ud800', 'évidence', 'x'.repeat(600)]) {
    same('a\ud800 </APPLICABLE-RULES> b', 100, field);
    same('## learnings index (SELECTED', 5, field);
  }
});

test('odd caps take the reference path through truncateToBytes', () => {
  for (const cap of [2.5, -1, NaN, undefined, '7', null, Infinity]) {
    same('ab\ud800cd — ef\u200bgh', cap);
  }
});

// xorshift32
let state = 12345;
function rand(n) {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state % n;
}
const ATOMS = [
  'a', 'word ', 'é', '—', '€', '日', '😀', '\ufe0f', '\ufe0e', '\u200b', '\u202e', '\u0007', '\t', '\n', '\r',
  '\ud83d', '\ude00', '\ud800', '\udfff', '\ufffd', '\u2028', '\ufeff', 'untrusted-content:end', '0123456789abcdef',
];

test('generated strings: sanitizeProse and deriveFenceToken agree with the reference', () => {
  for (let i = 0; i < 3000; i++) {
    let text = '';
    for (let n = rand(i % 10 === 0 ? 400 : 30); n > 0; n--) text += ATOMS[rand(ATOMS.length)];
    same(text, rand(3) === 0 ? rand(40) : 10_000);
    assert.equal(airlock.deriveFenceToken(text), reference.deriveFenceToken(text), JSON.stringify(text));
  }
});

test('inputs larger than the scratch get buffers of their own', () => {
  const big = 'x—\u200b '.repeat(1_200_000) + '\ud800';
  same(big, 10_000_000);
  same(big, 100);
  assert.equal(airlock.deriveFenceToken(big), reference.deriveFenceToken(big));
});

test('deriveFenceToken: pairs and lone halves at every position of 32-unit blocks', () => {
  // The AVX-512 step encodes pairs inside a block and refuses one split by the
  // block's end or a lone half: each of them at every unit of three blocks, in
  // ASCII, three-byte and mixed text.
  const bases = ['a'.repeat(96), '日本語'.repeat(32), 'ab—c€é日 '.repeat(12)];
  const inserts = ['😀', '\udbff\udfff', '😀😀', '\ud83d', '\ude00', '\ude00\ud83d', '😀\ufe0f'];
  for (const base of bases) {
    for (const insert of inserts) {
      for (let at = 0; at <= base.length; at++) {
        const text = base.slice(0, at) + insert + base.slice(at);
        assert.equal(airlock.deriveFenceToken(text), reference.deriveFenceToken(text), JSON.stringify(text));
      }
    }
  }
});

test('deriveFenceToken: the known answers, lone surrogates hashed as U+FFFD', () => {
  assert.equal(airlock.deriveFenceToken(''), '9a271f2a');
  assert.equal(airlock.deriveFenceToken('hello'), 'f6c5c364');
  assert.equal(airlock.deriveFenceToken('€'), 'f415df34');
  assert.equal(airlock.deriveFenceToken('\ud800'), airlock.deriveFenceToken('\ufffd'));
  assert.equal(airlock.deriveFenceToken('a\ude00b'), reference.deriveFenceToken('a\ude00b'));
});

test('a buffer above what Node can allocate fails with its sizes named', () => {
  assert.equal(bufferSize(100, 'work', 10, 1000), 100);
  assert.throws(
    () => bufferSize(5_000_000_000, 'work', 700_000_000, 4_294_967_296),
    (err) =>
      err instanceof RangeError &&
      err.message ===
        'airlock: a string of 700000000 UTF-16 code units needs a 5000000000-byte work buffer, ' +
          'above the largest Buffer this Node.js can allocate (4294967296 bytes)',
  );
});
