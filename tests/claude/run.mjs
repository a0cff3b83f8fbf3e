// The end-to-end test: real Claude Code builds, driven headless by the scripted mock API,
// with airlock's hooks registered through --settings. Each check asserts what actually
// happened: files on disk, messages the MCP server was asked to send, what the model
// received in its next request.
//
// Usage: node run.mjs [--client NAME]... [--only GROUP]...
// Env: AIRLOCK_BIN (default ../../target/release/airlock).
//
// Attacks that main's hooks still let through are listed in EXPECTED_FAILURES: they are
// run and reported (XFAIL), they do not fail the run; one that starts passing is reported
// as XPASS so the entry can be removed. Flip an entry by deleting it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLIENTS, HERE, callId, runClaude, tempDir, toolResult } from './lib.mjs';

const AIRLOCK = resolve(process.env.AIRLOCK_BIN ?? join(HERE, '../../target/release/airlock'));

/// `client/check` names of attacks main's hooks let through (issue 18), until the
/// hardened write-scope (scope18) and send gate (gate18) land.
export const EXPECTED_FAILURES = new Set([
  // write-scope: the raw-path client hands the hook what it will normalise itself.
  '2.1.87/write-scope: leading space',
  '2.1.87/write-scope: leading NBSP',
  '2.1.87/write-scope: leading ~',
  '2.1.87/write-scope: .. through a directory symlink',
  '2.1.87/write-scope: nothing outside the project',
  // write-scope: protected names compared byte for byte (2.1.87 refuses these itself).
  '2.1.332/write-scope: .CLAUDE/settings.json',
  '2.1.332/write-scope: .Git/hooks/pre-commit',
  // send-gate: ZWJ emoji blocked, HTML references passed, nested
  // strings not pattern-scanned, a hanging gate times out into a send.
  '2.1.87/send-gate: clean ZWJ emoji',
  '2.1.332/send-gate: clean ZWJ emoji',
  '2.1.87/send-gate: &#x202E without ;',
  '2.1.332/send-gate: &#x202E without ;',
  '2.1.87/send-gate: s&#111rry without ;',
  '2.1.332/send-gate: s&#111rry without ;',
  '2.1.87/send-gate: &ZeroWidthSpace;',
  '2.1.332/send-gate: &ZeroWidthSpace;',
  '2.1.87/send-gate: block pattern in a nested string',
  '2.1.332/send-gate: block pattern in a nested string',
  '2.1.87/send-gate: FIFO in the ledger directory',
  '2.1.332/send-gate: FIFO in the ledger directory',
]);

const results = [];
function check(client, name, ok, detail) {
  const id = `${client.name}/${name}`;
  const expected = EXPECTED_FAILURES.has(id);
  const status = ok ? (expected ? 'XPASS' : 'PASS') : expected ? 'XFAIL' : 'FAIL';
  results.push({ id, status, detail });
  console.log(`${status.padEnd(5)} ${id}${ok ? '' : `: ${detail}`}`);
}

const hook = (command, matcher, timeout) => ({
  matcher,
  hooks: [{ type: 'command', command, ...(timeout ? { timeout } : {}) }],
});
const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;

// ---- write-scope ----------------------------------------------------------------------

async function writeScope(client) {
  const dir = tempDir('ws');
  const proj = join(dir, 'proj');
  mkdirSync(join(proj, 'sub/a/real'), { recursive: true });
  mkdirSync(join(dir, 'outside'));
  execFileSync('git', ['init', '-q', proj]);
  // docs -> sub/a/real: lexically docs/../.. is the project's parent, physically sub/.
  symlinkSync(join(proj, 'sub/a/real'), join(proj, 'docs'));
  const home = join(dir, 'home');
  const cases = [
    { name: 'clean write', path: join(proj, 'notes/ok.md'), lands: join(proj, 'notes/ok.md'), allowed: true },
    { name: 'leading space', path: ` ${dir}/outside/space.txt`, lands: join(dir, 'outside/space.txt') },
    { name: 'leading NBSP', path: `\u00a0${dir}/outside/nbsp.txt`, lands: join(dir, 'outside/nbsp.txt') },
    { name: 'leading ~', path: '~/.config/autostart/x.desktop', lands: join(home, '.config/autostart/x.desktop') },
    { name: '.. through a directory symlink', path: `${proj}/docs/../../outside/dotdot.txt`, lands: join(dir, 'outside/dotdot.txt') },
    { name: '.CLAUDE/settings.json', path: join(proj, '.CLAUDE/settings.json'), lands: join(proj, '.CLAUDE/settings.json') },
    { name: '.Git/hooks/pre-commit', path: join(proj, '.Git/hooks/pre-commit'), lands: join(proj, '.Git/hooks/pre-commit') },
    { name: 'clean write through the symlink', path: join(proj, 'docs/inside.md'), lands: join(proj, 'sub/a/real/inside.md'), allowed: true },
  ];
  const calls = cases.map((c) => ({ name: 'Write', input: { file_path: c.path, content: `written by ${c.name}\n` } }));
  const command = `${q(AIRLOCK)} hook write-scope --root ${q(proj)} --allow-dir .`;
  const run = await runClaude(client, {
    dir, cwd: proj, calls,
    hooks: { PreToolUse: [hook(command, 'Write|Edit|MultiEdit|NotebookEdit')] },
  });
  check(client, 'write-scope: the client ran every step', run.code === 0 && run.requests.length > cases.length,
    `exit ${run.code}, ${run.requests.length} requests, stderr ${run.stderr.slice(0, 300)}`);
  cases.forEach((c, i) => {
    const landed = existsSync(c.lands);
    const result = toolResult(run, callId(i));
    const said = JSON.stringify(result?.content ?? null).slice(0, 200);
    if (process.env.E2E_VERBOSE) console.log(`  ${c.name}: the model got ${said}`);
    if (c.allowed) check(client, `write-scope: ${c.name}`, landed && !result?.is_error, `not written; the model got ${said}`);
    else check(client, `write-scope: ${c.name}`, !landed, `written to ${c.lands}; the model got ${said}`);
  });
  const outside = readdirSync(join(dir, 'outside'));
  check(client, 'write-scope: nothing outside the project', outside.length === 0, `outside holds ${outside.join(', ')}`);
}

// ---- send-gate ------------------------------------------------------------------------

const SEND = 'mcp__mail__send_email';

function fileLedger(env, toolInput) {
  const call = JSON.stringify({ tool_name: SEND, tool_input: toolInput });
  const sha = spawnSync(AIRLOCK, ['guard', 'sha'], { input: call, env: { ...process.env, ...env } });
  const digest = sha.stdout.toString().trim();
  const ledger = {
    created_at: new Date().toISOString(),
    message_sha256: digest,
    is_reply: false,
    no_factual_claims: true,
    claims: [],
    history_searched: [],
    voice_rules_pass: true,
    invented_precision_scan: true,
    recipient_address_check: true,
  };
  const w = spawnSync(AIRLOCK, ['guard', 'write-ledger'], { input: JSON.stringify(ledger), env: { ...process.env, ...env } });
  if (w.status !== 0) throw new Error(`write-ledger: ${w.stderr}`);
}

async function sendGate(client, { fifo = false } = {}) {
  const dir = tempDir('sg');
  const state = join(dir, 'state');
  const config = join(dir, 'send-gate.json');
  execFileSync('cp', [join(HERE, '../../cli/send-gate.example.json'), config]);
  const env = { AIRLOCK_SEND_GATE_CONFIG: config, AIRLOCK_SEND_GATE_STATE: state };
  const mail = (body, extra = {}) => ({ to: 'ann@example.com', subject: 'Invoice', body, ...extra });
  const cases = fifo
    ? [{ name: 'FIFO in the ledger directory', input: mail('Thank you, the invoice went out.') }]
    : [
        { name: 'clean send', input: mail('Thank you for writing this up properly.'), sent: true },
        { name: 'clean ZWJ emoji', input: mail('Great work \u{1F468}\u200D\u{1F4BB} \u{1F3F3}\uFE0F\u200D\u{1F308} \u{1F468}\u200D\u{1F469}\u200D\u{1F467}'), sent: true },
        { name: 'orphan variation selector', input: mail('Hello\uFE0F there, see\u{E0100} the file.') },
        { name: 'word joiner (hidden, not ZWJ)', input: mail('Pay\u2060ment is due.') },
        { name: 'raw bidi override', input: mail('Invoice \u202Efdp.exe attached.') },
        { name: '&#x202E without ;', input: mail('<p>Invoice &#x202E fdp.exe attached.</p>') },
        { name: 's&#111rry without ;', input: mail('<p>I am s&#111rry for the delay.</p>') },
        { name: '&ZeroWidthSpace;', input: mail('<p>Pay&ZeroWidthSpace;ment is due.</p>') },
        { name: 'block pattern in a nested string', input: mail('Thank you.', { attachments: [{ html: "<p>I'm sorry for the delay, truly.</p>" }] }) },
        { name: 'clean send after the attacks', input: mail('The invoice went out on Tuesday.'), sent: true },
      ];
  for (const c of cases) fileLedger(env, c.input);
  if (fifo) execFileSync('mkfifo', [join(state, 'ledger', 'stray.json')]);
  const calls = cases.map((c) => ({ name: SEND, input: c.input }));
  const timeout = fifo ? 5 : 30;
  const run = await runClaude(client, {
    dir, calls, env,
    hooks: { PreToolUse: [hook(`${q(AIRLOCK)} hook send-gate`, 'mcp__.*(send|draft|schedule)', timeout)] },
  });
  const tag = fifo ? 'send-gate (FIFO)' : 'send-gate';
  check(client, `${tag}: the client ran every step`, run.code === 0 && run.requests.length > cases.length,
    `exit ${run.code}, ${run.requests.length} requests, stderr ${run.stderr.slice(0, 300)}`);
  cases.forEach((c, i) => {
    const sent = run.sent.some((m) => m.body === c.input.body && JSON.stringify(m) === JSON.stringify(c.input));
    const said = JSON.stringify(toolResult(run, callId(i))?.content ?? null).slice(0, 200);
    if (c.sent) check(client, `send-gate: ${c.name}`, sent, `not sent; the model got ${said}`);
    else check(client, `send-gate: ${c.name}`, !sent, `sent; the model got ${said}`);
  });
}

// ---- main -----------------------------------------------------------------------------

const argv = process.argv.slice(2);
const pick = (flag) => argv.flatMap((a, i) => (argv[i - 1] === flag ? [a] : []));
const clients = pick('--client').length ? CLIENTS.filter((c) => pick('--client').includes(c.name)) : CLIENTS;
const only = pick('--only');
const groups = {
  'write-scope': writeScope,
  'send-gate': (c) => sendGate(c),
  'send-gate-fifo': (c) => sendGate(c, { fifo: true }),
};
if (!existsSync(AIRLOCK)) {
  console.error(`airlock binary not found at ${AIRLOCK}`);
  process.exit(2);
}
for (const client of clients) {
  for (const [name, fn] of Object.entries(groups)) {
    if (only.length && !only.includes(name)) continue;
    try {
      await fn(client);
    } catch (e) {
      check(client, `${name}: harness`, false, String(e?.stack ?? e));
    }
  }
}
const count = (s) => results.filter((r) => r.status === s).length;
console.log(`\nexpected failures (issue 18, until the hardened hooks land): ${count('XFAIL')} XFAIL, ${count('XPASS')} XPASS`);
for (const r of results.filter((r) => r.status === 'XPASS')) console.log(`  XPASS ${r.id}: remove it from EXPECTED_FAILURES`);
console.log(`e2e: ${count('PASS') + count('XFAIL')} passed, ${count('FAIL') + count('XPASS')} failed`);
process.exit(count('FAIL') + count('XPASS') ? 1 : 0);
