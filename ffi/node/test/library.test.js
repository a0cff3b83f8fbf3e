// Finding the library, the constants, and the default instance.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as airlock from '../index.js';

const INDEX = fileURLToPath(new URL('../index.js', import.meta.url));

function inChild(code, env) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

test('AIRLOCK_LIB pointing nowhere: the error names the path and the build command', () => {
  const code = `
    import { sanitizeProse } from ${JSON.stringify(INDEX)};
    try { sanitizeProse('x', { field: 'f', maxBytes: 1 }); console.log('LOADED'); }
    catch (err) { console.log(JSON.stringify({ error: err instanceof Error, message: err.message })); }
  `;
  const child = inChild(code, { AIRLOCK_LIB: '/nonexistent/libairlock.so' });
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout);
  assert.ok(out.error);
  assert.match(out.message, /\/nonexistent\/libairlock\.so/);
  assert.match(out.message, /AIRLOCK_LIB/);
  assert.match(out.message, /cargo build -p airlock-ffi --release/);
});

test('importing does not load the library; the first call does', () => {
  const child = inChild(
    `import * as a from ${JSON.stringify(INDEX)}; console.log(a.TITLE_MAX_BYTES, typeof a.sanitizeProse);`,
    { AIRLOCK_LIB: '/nonexistent/libairlock.so' },
  );
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), '256 function');
});

test('the explicit option wins and is the only path tried', () => {
  assert.throws(
    () => airlock.createAirlock({ library: '/nowhere/at/all.so' }),
    (err) =>
      err instanceof Error &&
      err.message.includes('/nowhere/at/all.so') &&
      err.message.includes('cargo build -p airlock-ffi --release') &&
      !err.message.includes('target/release'),
  );
  const instance = airlock.createAirlock({ library: airlock.defaultAirlock().libraryPath });
  assert.strictEqual(instance.sanitizeProse('a\u200bb', { field: 'f', maxBytes: 10 }), 'ab');
});

test('a file that is not a library: the error names it', () => {
  assert.throws(
    () => airlock.createAirlock({ library: INDEX }),
    (err) => err instanceof Error && err.message.startsWith(`airlock: cannot load ${INDEX}`),
  );
});

test('without option or AIRLOCK_LIB, the workspace build output is used', () => {
  const env = { ...process.env };
  delete env.AIRLOCK_LIB;
  const child = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { defaultAirlock } from ${JSON.stringify(INDEX)}; console.log(defaultAirlock().libraryPath);`],
    { env, encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout.trim(), /target\/(release|debug)\/libairlock\.(so|dylib|dll)$/);
});

test('constants match the reference and the library', () => {
  const lib = airlock.defaultAirlock();
  assert.strictEqual(airlock.UNTRUSTED_BEGIN, lib.envelope.begin);
  assert.strictEqual(airlock.UNTRUSTED_END, lib.envelope.end);
  assert.strictEqual(airlock.INSIGHT_MAX_BYTES, 2000);
  assert.strictEqual(airlock.EVIDENCE_ITEM_MAX_BYTES, 2000);
  assert.strictEqual(airlock.EVIDENCE_MAX_BYTES, 5000);
  assert.strictEqual(airlock.TITLE_MAX_BYTES, 256);
  assert.strictEqual(airlock.DESCRIPTION_MAX_BYTES, 512);
  assert.ok(Object.isFrozen(airlock.WRAPPER_FORGERY_LITERALS));
  assert.deepStrictEqual(
    [...airlock.WRAPPER_FORGERY_LITERALS],
    ['</APPLICABLE-RULES>', '## Applicable Rules (scoped', '</LEARNINGS-INDEX>', '## Learnings Index (selected'],
  );
  assert.strictEqual(airlock.HOST_CLASS_RE.source, '^[A-Za-z0-9._-]+$');
  assert.strictEqual(airlock.LEARNING_KEY_RE.source, '^[a-z0-9/-]+$');
  assert.strictEqual(airlock.EXPIRES_AT_RE.source, '^\\d{4}-\\d{2}-\\d{2}$');
  assert.strictEqual(airlock.PROVENANCE_TOKEN_RE.source, '^[A-Za-z0-9._:-]+$');
  for (const re of [airlock.HOST_CLASS_RE, airlock.LEARNING_KEY_RE, airlock.EXPIRES_AT_RE, airlock.PROVENANCE_TOKEN_RE]) {
    assert.strictEqual(re.flags, '');
  }
  assert.match(lib.version, /^\d+\.\d+\.\d+/);
  assert.strictEqual(lib.unicodeVersion, '17.0.0');
});
