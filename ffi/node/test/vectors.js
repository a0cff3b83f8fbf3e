// The conformance vector runner, apart from where the vectors and the
// implementation come from: conformance.test.js and strict.test.js run it on this
// binding under node:test; scripts/package-wasm.sh runs the same functions on the
// WebAssembly package under Node, Deno and workerd (which has no file system, so
// the files come in as text).

import assert from 'node:assert/strict';

/** The files every layer runs, and node-vectors.jsonl (JavaScript-only inputs). */
export const FILES = ['reference-vectors.jsonl', 'gate-3.21-vectors.jsonl', 'edge-vectors.jsonl', 'node-vectors.jsonl'];
export const STRICT_FILE = 'strict-vectors.jsonl';

/** The non-empty lines of a vector file, each with where it is. */
export function vectorLines(file, text) {
  // split('\n') only: a line may hold U+2028/U+2029, which some splitters break on.
  return text
    .split('\n')
    .map((line, i) => ({ line, where: `${file}:${i + 1}` }))
    .filter(({ line }) => line.trim() !== '');
}

function args(airlock, vector) {
  if (vector.gate !== undefined) return [...vector.args, { gate: vector.gate }];
  if (vector.fn !== 'assertMachineToken') return vector.args;
  const patterns = {
    HOST_CLASS_RE: airlock.HOST_CLASS_RE,
    LEARNING_KEY_RE: airlock.LEARNING_KEY_RE,
    EXPIRES_AT_RE: airlock.EXPIRES_AT_RE,
    PROVENANCE_TOKEN_RE: airlock.PROVENANCE_TOKEN_RE,
  };
  const [value, { field, pattern }] = vector.args;
  assert.ok(pattern in patterns, `unknown pattern ${pattern}`);
  return [value, { field, pattern: patterns[pattern] }];
}

/** Runs every line through `airlock` (the module's namespace); the failures, as text. */
export function checkVectors(airlock, lines) {
  const failures = [];
  for (const { line, where } of lines) {
    const vector = JSON.parse(line);
    const fn = airlock[vector.fn];
    assert.equal(typeof fn, 'function', `no export ${vector.fn}`);
    try {
      let got;
      try {
        got = fn(...args(airlock, vector));
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
  return failures;
}

/** The kinds of strict vector this API runs (other layers add more). */
const STRICT_KINDS = new Set(['stripDangerousInvisibles', 'sanitizeProse', 'assertNoControlChars']);

/** Runs every strict line of a kind this API has with `profile: 'strict'`. */
export function checkStrictVectors(airlock, lines) {
  const strict = { profile: 'strict' };
  const failures = [];
  let ran = 0;
  for (const { line, where } of lines) {
    const v = JSON.parse(line);
    if (!STRICT_KINDS.has(v.fn)) continue;
    ran += 1;
    const call = () => {
      switch (v.fn) {
        case 'stripDangerousInvisibles':
          return airlock.stripDangerousInvisibles(v.args[0], strict);
        case 'sanitizeProse':
          return airlock.sanitizeProse(v.args[0], { ...v.args[1], ...strict });
        default:
          return airlock.assertNoControlChars(v.args[0], v.args[1], strict);
      }
    };
    try {
      if ('throws' in v) assert.throws(call, (e) => e.message === v.throws, where);
      else assert.equal(call(), v.ok, where);
    } catch (err) {
      failures.push(`${where}: ${err.message.slice(0, 600)}`);
    }
  }
  return { ran, failures };
}

/**
 * The implementation under test: this binding, or the entry point AIRLOCK_MODULE
 * names, for another package with the same API: an absolute path, a URL, or a
 * package name resolved from here (an installed copy's test directory).
 */
export async function implementation() {
  const other = typeof process === 'undefined' ? undefined : process.env.AIRLOCK_MODULE;
  if (!other) return import('../index.js');
  return import(other.startsWith('/') ? new URL(`file://${other}`).href : other);
}
