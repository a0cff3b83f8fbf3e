// Every conformance vector that has a command-line form, through a prebuilt `airlock`
// binary, byte for byte (stdout, stderr, exit code) — what cli/tests/conformance_cli.rs
// and strict_cli.rs check against the workspace build, here against a release
// artifact of any target, run through a runner prefix (qemu-user, wine) when it is not
// this machine's.
//
// Usage: node cli-vectors.mjs [--runner 'CMD ARGS'] [--jobs N] [--all-strict] BIN VECTORS_DIR
//
// The strict file's generated families (thousands of lines each) are sampled every
// 40th line as the workspace test does, unless --all-strict. Prints one summary line,
// `cli-vectors: N passed, N failed`, and exits non-zero on any failure.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const argv = process.argv.slice(2);
let runner = [];
let jobs = 4;
let allStrict = false;
while (argv[0]?.startsWith('--')) {
  const flag = argv.shift();
  if (flag === '--runner') runner = argv.shift().split(' ').filter(Boolean);
  else if (flag === '--jobs') jobs = Number(argv.shift());
  else if (flag === '--all-strict') allStrict = true;
  else throw new Error(`unknown flag ${flag}`);
}
const [bin, dir] = argv;
if (!bin || !dir) throw new Error('usage: cli-vectors.mjs [--runner CMD] [--jobs N] [--all-strict] BIN VECTORS_DIR');

const KINDS = {
  HOST_CLASS_RE: 'host-class',
  LEARNING_KEY_RE: 'learning-key',
  EXPIRES_AT_RE: 'expires-at',
  PROVENANCE_TOKEN_RE: 'provenance',
};
const BULK = new Set(['rgi', 'rgi-broken', 'rgi-sanitize', 'drop-set', 'drop-set-in-marker']);

/** One check: the command line, stdin, and a judge of (code, stdout, stderr). */
function plain(v, ok) {
  // exit 0 with `ok` on stdout, or exit 1 with the message and a newline on stderr.
  return ({ code, out, err }) =>
    'throws' in v
      ? code === 1 && out === '' && err === `${v.throws}\n`
      : code === 0 && out === ok(v.ok) && err === '';
}

function checksOf(file, lineNo, raw, v) {
  const text = v.args[0];
  const at = `${file}:${lineNo}`;
  const strict = v.profile === 'strict';
  const profile = strict ? ['--profile', 'strict'] : [];
  const same = (x) => x;
  const make = (args, judge) => ({ at, raw, args: [...args], stdin: text, judge });
  switch (v.fn) {
    case 'sanitizeProse':
      return make(['sanitize', '--field', v.args[1].field, '--max-bytes', String(v.args[1].maxBytes), ...profile], plain(v, same));
    case 'stripDangerousInvisibles':
      return make(['strip', ...profile], plain(v, same));
    case 'assertNoControlChars':
      return make(['check', 'no-control', '--field', v.args[1], ...profile], plain(v, () => ''));
    case 'truncateToBytes':
      if (strict) return null;
      return make(['truncate', '--max-bytes', String(v.args[1]), '--json'],
        plain(v, (o) => `${JSON.stringify({ text: o.text, truncated: o.truncated, bytes: o.bytes })}\n`));
    case 'deriveFenceToken':
      if (strict) return null;
      return make(['fence'], plain(v, (t) => `${t}\n`));
    case 'assertMachineToken':
      if (strict) return null;
      return make(['check', KINDS[v.args[1].pattern], '--field', v.args[1].field], plain(v, () => ''));
    case 'assertSafeDescription':
      if (strict) return null;
      return make(['check', 'description'], plain(v, () => ''));
    case 'assertSafeGlob':
      if (strict) return null;
      return make(['check', 'glob'], plain(v, () => ''));
    case 'frontmatterRefusalReason': {
      if (strict) return null;
      const gate = v.gate ? ['--gate', v.gate] : [];
      // The gate never throws: a refusal is exit 1 with `<stdin>: <reason>` on stdout.
      return make(['frontmatter', ...gate, '-'], ({ code, out, err }) =>
        v.ok === null ? code === 0 && out === '' && err === '' : code === 1 && out === `<stdin>: ${v.ok}\n` && err === '');
    }
    case 'parseGlobsFrontmatter': {
      if (strict) return null;
      return make(['frontmatter', '--json', '-'], ({ code, out }) => {
        let object;
        try {
          object = JSON.parse(out);
        } catch {
          return false;
        }
        // The reference's own text of the result, key order included: the `ok`
        // member is the last one of the vector's line.
        const expected = 'ok' in v
          ? `"parsed":${raw.slice(raw.lastIndexOf(',"ok":') + 6, -1)}`
          : `"error":${JSON.stringify(v.throws)}`;
        const want = `{"file":"<stdin>",${expected},"refusal":${JSON.stringify(object.refusal)}}\n`;
        return code === (object.refusal === null ? 0 : 1) && out === want;
      });
    }
    default:
      return null; // a Node-only function (node-vectors.jsonl): no command-line form
  }
}

const checks = [];
let files = 0;
for (const file of ['reference-vectors.jsonl', 'gate-3.21-vectors.jsonl', 'edge-vectors.jsonl', 'strict-vectors.jsonl']) {
  files += 1;
  readFileSync(join(dir, file), 'utf8').split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const v = JSON.parse(raw);
    if (file === 'strict-vectors.jsonl' && !allStrict && BULK.has(v.why ?? '') && i % 40 !== 0) return;
    const c = checksOf(file, i + 1, raw, v);
    if (c) checks.push(c);
  });
}

function run(c) {
  return new Promise((resolve) => {
    const [cmd, ...pre] = runner.length ? runner : [bin];
    const child = spawn(cmd, [...(runner.length ? [...pre, bin] : []), ...c.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, WINEDEBUG: '-all' },
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.stdin.on('error', () => {}); // the command may exit before reading it all
    child.stdin.end(c.stdin);
    child.on('close', (code) =>
      resolve({ code, out: Buffer.concat(out).toString('utf8'), err: Buffer.concat(err).toString('utf8') }));
  });
}

let passed = 0;
const failed = [];
let next = 0;
async function worker() {
  while (next < checks.length) {
    const c = checks[next++];
    const got = await run(c);
    if (c.judge(got)) passed += 1;
    else failed.push(`${c.at} ${c.args.join(' ')}\n  input ${c.raw}\n  got exit ${got.code} stdout ${JSON.stringify(got.out)} stderr ${JSON.stringify(got.err)}`);
  }
}
await Promise.all(Array.from({ length: jobs }, worker));
for (const f of failed.slice(0, 10)) console.error(f);
console.log(`cli-vectors: ${passed} passed, ${failed.length} failed (${files} vector files, ${bin})`);
process.exit(failed.length === 0 && passed > 0 ? 0 : 1);
