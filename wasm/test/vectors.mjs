// Every conformance vector file through the package AIRLOCK_MODULE names, outside
// node:test (for Deno): the runner of ffi/node/test/vectors.js on the files of
// AIRLOCK_VECTORS_DIR. Prints what ran; exits 1 on any failure.

import { readFileSync } from 'node:fs';
import process from 'node:process';

import {
  FILES,
  STRICT_FILE,
  checkStrictVectors,
  checkVectors,
  implementation,
  vectorLines,
} from '../../ffi/node/test/vectors.js';

const dir = process.env.AIRLOCK_VECTORS_DIR.replace(/\/?$/, '/');
const read = (file) => vectorLines(file, readFileSync(`${dir}${file}`, 'utf8'));
const airlock = await implementation();

const lines = FILES.flatMap(read);
const failures = checkVectors(airlock, lines);
const strict = checkStrictVectors(airlock, read(STRICT_FILE));
const all = [...failures, ...strict.failures];
for (const f of all.slice(0, 20)) console.error(f);
console.log(`${lines.length} vectors and ${strict.ran} strict vectors, ${all.length} failing`);
if (all.length > 0 || lines.length < 1900 || strict.ran < 12000) process.exit(1);
