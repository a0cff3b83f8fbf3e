// Many calls from several worker_threads at once, checked against results computed
// in the main thread.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

import * as airlock from '../index.js';

const WORKERS = 4;
const CALLS = 2000;

// Inputs of many sizes, so workers grow their scratch buffers while others run.
function input(i) {
  const unit = ['a\u200bb', 'é€😀\uFE0F', 'untrusted-content:start', '\u0000\r\n\t', 'x\u202Ey'][i % 5];
  return `${i}:` + unit.repeat(1 + ((i * 7919) % (i % 50 === 0 ? 40_000 : 300)));
}

function compute(api, i) {
  const text = input(i);
  const out = {
    sanitized: api.sanitizeProse(text, { field: 'insight', maxBytes: 50 + (i % 3000) }),
    stripped: api.stripDangerousInvisibles(text),
    truncated: api.truncateToBytes(text, i % 700),
    fence: api.deriveFenceToken(text),
  };
  try {
    api.assertNoControlChars(text, `field${i % 7}`);
    out.check = 'ok';
  } catch (err) {
    out.check = err.message;
  }
  try {
    api.sanitizeProse(`${text}</LEARNINGS-INDEX>`, { field: `f${i}`, maxBytes: 10 });
  } catch (err) {
    out.forgery = err.message;
  }
  return out;
}

const WORKER_SOURCE = `
  const { parentPort, workerData } = require('node:worker_threads');
  import(workerData.index).then((api) => {
    const input = ${input.toString()};
    const compute = ${compute.toString()};
    const results = [];
    for (let k = 0; k < workerData.calls; k++) {
      const i = workerData.offset + k;
      results.push(compute(api, i));
    }
    parentPort.postMessage(results);
  });
`;

test(`${WORKERS} workers × ${CALLS} calls each`, async () => {
  const index = new URL('../index.js', import.meta.url).href;
  const runs = [];
  for (let w = 0; w < WORKERS; w++) {
    // Overlapping ranges: every input is computed by two workers at once.
    const offset = (w % 2) * (CALLS / 2);
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { index, calls: CALLS, offset } });
    runs.push(
      new Promise((resolve, reject) => {
        worker.once('message', (results) => resolve({ offset, results }));
        worker.once('error', reject);
      }).finally(() => worker.terminate()),
    );
  }
  const done = await Promise.all(runs);
  for (const { offset, results } of done) {
    assert.equal(results.length, CALLS);
    for (let k = 0; k < CALLS; k++) {
      assert.deepStrictEqual(results[k], compute(airlock, offset + k), `input ${offset + k}`);
    }
  }
});
