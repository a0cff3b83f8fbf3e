// Every line of the conformance vectors through the binding, byte-identical: the
// files every layer runs, and node-vectors.jsonl, the JavaScript-only inputs (lone
// surrogates, values that are not strings).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { FILES, checkVectors, implementation, vectorLines } from './vectors.js';

const airlock = await implementation();

// AIRLOCK_VECTORS_DIR: where the vectors are when this suite runs from an installed
// copy of the package (scripts/package-node.sh's install test).
const DIR = process.env.AIRLOCK_VECTORS_DIR
  ? new URL(`file://${process.env.AIRLOCK_VECTORS_DIR.replace(/\/?$/, '/')}`)
  : new URL('../../../tests/conformance/', import.meta.url);

const lines = FILES.flatMap((file) => vectorLines(file, readFileSync(new URL(file, DIR), 'utf8')));

test('the vector files are read whole', () => {
  assert.ok(lines.length >= 1900, `only ${lines.length} vectors`);
  assert.ok(lines.filter(({ line }) => line.includes('"gate":"3.21"')).length >= 153);
});

test('every conformance vector', () => {
  const failures = checkVectors(airlock, lines);
  assert.deepStrictEqual(failures.slice(0, 20), [], `${failures.length} of ${lines.length} vectors fail`);
});
