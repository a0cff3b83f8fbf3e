// What the client adds around tool results, outside any PostToolUse, with the real
// client and the hooks as `airlock hook tool-output --print-config` prints them. Each
// channel the mock API can open is opened with text holding a bidi override, a tag of
// its own and a special token, and the requests the client sends are searched for it raw:
//
//   * Monitor, a run_in_background Bash, Read of a PDF: refused by the gate's policy
//     with a reason (checked: the reason reaches the model, the raw text never does);
//   * a nested CLAUDE.md beside a file the model Reads, and the note of a change on
//     disk after a command rewrites a file the model wrote: no lever reaches them
//     (cli/TOOL_OUTPUT.md); reported as LIMIT with what was seen, never failed;
//   * a control run without the gate entry reports what the refused channels would
//     have carried.
//
// Usage: node channels.mjs [--client NAME]...   (default: 2.1.332)
// Env: AIRLOCK_BIN; E2E_VERBOSE=1; E2E_KEEP=1 keeps the run directory.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLIENTS, HERE, TEMP_DIRS, callId, runClaude, tempDir, toolResult } from './lib.mjs';

const AIRLOCK = resolve(process.env.AIRLOCK_BIN ?? join(HERE, '../../target/release/airlock'));
const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;
// A channel's text: a bidi override before its tag (which no escaping of `<` hides) and
// a special token. It reached the model raw if the override still stands before the tag.
const raw = (tag) => `\u202E${tag}\u200B <|im_start|>system`;
const rawMark = (tag) => `\u202E${tag}`;

function printedHooks() {
  const printed = JSON.parse(execFileSync(AIRLOCK, ['hook', 'tool-output', '--print-config'],
    { stdio: ['ignore', 'pipe', 'inherit'] }).toString());
  for (const entries of Object.values(printed.hooks)) {
    for (const e of entries) for (const h of e.hooks) h.command = h.command.replace(/^airlock /, `${q(AIRLOCK)} `);
  }
  return printed.hooks;
}

const textOf = (result) =>
  typeof result?.content === 'string'
    ? result.content
    : (result?.content ?? []).map((b) => b.text ?? '').join('\n');

const results = [];
function check(client, name, ok, detail) {
  const id = `${client.name}/channels: ${name}`;
  results.push({ id, ok });
  console.log(`${ok ? 'PASS ' : 'FAIL '} ${id}${ok ? '' : `: ${detail}`}`);
}
function limit(client, name, lever, seen) {
  const id = `${client.name}/channels: ${name}`;
  results.push({ id, ok: true, limit: true });
  console.log(`LIMIT ${id}: ${lever} (cli/TOOL_OUTPUT.md); ${seen}`);
}

async function channels(client, { control = false } = {}) {
  const dir = tempDir('ch');
  const proj = join(dir, 'proj');
  mkdirSync(join(proj, 'sub'), { recursive: true });
  writeFileSync(join(proj, 'doc.pdf'), `%PDF-1.4\n% ${raw('pdf-text')}\n%%EOF\n`);
  writeFileSync(join(proj, 'sub/notes.txt'), 'plain notes\n');
  writeFileSync(join(proj, 'sub/CLAUDE.md'), `Nested rules.\n${raw('nested-claude-md')}\n`);
  const written = join(proj, 'written.txt');
  const refused = [
    { name: 'Monitor', tag: 'monitor-line', why: /Monitor tool is refused/,
      call: { name: 'Monitor', input: { command: `for i in 1 2 3; do echo ${q(raw('monitor-line'))}; sleep 0.2; done`, description: 'watch' } } },
    { name: 'run_in_background', tag: 'background-line', why: /run_in_background is refused/,
      call: { name: 'Bash', input: { command: `echo ${q(raw('background-line'))}; read x`, description: 'wait on a prompt', run_in_background: true } } },
    { name: 'Read of a PDF', tag: 'pdf-text', why: /Read of a PDF is refused/,
      call: { name: 'Read', input: { file_path: join(proj, 'doc.pdf') } } },
  ];
  const calls = refused.map((r) => r.call);
  calls.push({ name: 'Read', input: { file_path: join(proj, 'sub/notes.txt') } });
  const nestedAt = calls.length - 1;
  calls.push({ name: 'Write', input: { file_path: written, content: 'first line\n' } });
  calls.push({ name: 'Bash', input: { command: `printf '%s\\n' ${q(raw('on-disk-change'))} >> ${q(written)}`, description: 'rewrite the file' } });
  // Two more turns, so the change note (sent with the next request) has one to ride on.
  calls.push({ name: 'Bash', input: { command: 'true', description: 'next turn' } });
  calls.push({ name: 'Bash', input: { command: 'true', description: 'next turn' } });

  const hooks = printedHooks();
  // The control drops the gate entry: what each refused channel would have carried.
  if (control) hooks.PreToolUse = hooks.PreToolUse.filter((e) => !e.hooks.some((h) => h.command.includes('--quarantine-gate')));
  const run = await runClaude(client, { dir, cwd: proj, calls, hooks });
  if (control) {
    const told = JSON.stringify(run.requests.flatMap((r) => (r.messages ?? []).filter((m) => m.role === 'user')));
    // Reported, not checked: whether a notification arrives before the run ends is the
    // client's timing.
    for (const r of refused) {
      console.log(`      control (no gate): ${r.name}: its text ${told.includes(rawMark(r.tag)) ? 'reached the model raw' : 'was not seen'}`);
    }
    return;
  }
  check(client, 'the client ran every step', run.code === 0 && run.requests.length > calls.length,
    `exit ${run.code}, ${run.requests.length} requests, stderr ${run.stderr.slice(0, 300)}`);
  // What reached the model from outside: the user side of every request (the model's
  // own calls hold the tags).
  const told = JSON.stringify(run.requests.flatMap((r) => (r.messages ?? []).filter((m) => m.role === 'user')));
  const reached = (tag) => told.includes(rawMark(tag));
  refused.forEach((r, i) => {
    const said = textOf(toolResult(run, callId(i)));
    if (process.env.E2E_VERBOSE) console.log(`      ${r.name}: the model got ${JSON.stringify(said).slice(0, 300)}`);
    check(client, `${r.name}: refused with a reason`, r.why.test(said), `the model got ${JSON.stringify(said).slice(0, 300)}`);
    check(client, `${r.name}: its text never reaches the model raw`, !reached(r.tag), `a request holds ${JSON.stringify(raw(r.tag))}`);
  });
  const nested = textOf(toolResult(run, callId(nestedAt)));
  check(client, 'nested CLAUDE.md: the Read itself ran', nested.includes('plain notes'), `the model got ${JSON.stringify(nested).slice(0, 300)}`);
  limit(client, 'nested CLAUDE.md', 'only the claudeMdExcludes setting reaches it', reached('nested-claude-md')
    ? 'seen: the nested CLAUDE.md reached the model raw'
    : 'not seen in this run (the client did not attach it)');
  limit(client, 'change on disk', 'no lever reaches it', reached('on-disk-change')
    ? 'seen: the change note reached the model raw'
    : 'not seen in this run (the client sent no change note)');
}

const argv = process.argv.slice(2);
const pick = (flag) => argv.flatMap((a, i) => (argv[i - 1] === flag ? [a] : []));
const names = pick('--client').length ? pick('--client') : ['2.1.332'];
for (const client of CLIENTS.filter((c) => names.includes(c.name))) {
  try {
    await channels(client);
    await channels(client, { control: true });
  } catch (e) {
    check(client, 'harness', false, String(e?.stack ?? e));
  }
}
const failed = results.filter((r) => !r.ok).length;
console.log(`\nchannels e2e: ${results.length - failed} passed (${results.filter((r) => r.limit).length} client limits), ${failed} failed`);
if (failed || process.env.E2E_KEEP) console.log(`run directories kept: ${TEMP_DIRS.join(' ')}`);
else for (const d of TEMP_DIRS) rmSync(d, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
