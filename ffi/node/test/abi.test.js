// The ABI facts the binding uses come from include/airlock.h, through the generated
// lib/abi.js; this holds lib/abi.js to the header and the library to both.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import koffi from 'koffi';

import { createAirlock } from '../index.js';
import { ENUMS, FUNCTIONS, STRUCTS } from '../lib/abi.js';

const TOOL = fileURLToPath(new URL('../tools/gen-abi.mjs', import.meta.url));
const HEADER = fileURLToPath(new URL('../../../include/airlock.h', import.meta.url));

test('lib/abi.js is what tools/gen-abi.mjs makes of include/airlock.h', { skip: !existsHeader() }, () => {
  execFileSync(process.execPath, [TOOL, '--check'], { stdio: 'pipe' });
});

function existsHeader() {
  try {
    execFileSync('test', ['-f', HEADER]);
    return true;
  } catch {
    return false;
  }
}

test('status names and numbers agree with the library', () => {
  const api = createAirlock();
  const lib = koffi.load(api.libraryPath);
  const name = lib.func('const char *airlock_status_name(uint32_t status)');
  for (const [status, value] of Object.entries(ENUMS.STATUS)) {
    assert.equal(name(value), `AIRLOCK_STATUS_${status}`);
  }
  const keyName = lib.func('const char *airlock_meta_key_name(uint32_t key)');
  for (const [key, value] of Object.entries(ENUMS.META_KEY)) {
    assert.equal(keyName(value).replace(/-/g, '').toUpperCase(), key.replace(/_/g, ''));
  }
  for (const fn of Object.keys(FUNCTIONS)) assert.ok(lib.func(`void ${fn}(void)`), fn);
});

test('the structs and gates the binding reads are in the header', () => {
  for (const s of ['airlock_frontmatter_summary', 'airlock_meta_entry', 'airlock_span']) assert.ok(STRUCTS[s], s);
  assert.deepEqual(Object.keys(ENUMS.GATE), ['V3_20', 'V3_21']);
  assert.equal(FUNCTIONS.airlock_frontmatter_read, 11);
});
