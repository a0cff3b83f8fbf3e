// The real-Codex end-to-end test: the pinned Codex CLI (`codex exec`) against the scripted mock
// Responses API, with airlock's guards registered as hooks in both of Codex's forms (hooks.json
// and inline `[hooks]` tables of config.toml). Every case runs Codex for real; an assertion
// that fails fails the run.
//
// Usage: AIRLOCK_BIN=target/release/airlock [AIRLOCK_DEBUG_BIN=target/debug/airlock] [CLAUDE=1]
//        node run.mjs [--table] [CASE-NAME-SUBSTRING…]   (`^NAME`: names starting so)
//   AIRLOCK_DEBUG_BIN: a debug build, for the cases that need its test switches (a forced
//   panic, a crash, a stall); without it they are not run.
//   CLAUDE=1: Claude Code's columns too (tests/claude's packages installed).
//   --table: print the verdict matrix's tables (cli/CLIENTS.md) from the matrix cases run.
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CODEX, runCodex, tempDir, TEMP_DIRS, toolOutput } from './lib.mjs';
import { matrixCases, matrixTables } from './matrix.mjs';

const AIRLOCK = process.env.AIRLOCK_BIN;
if (!AIRLOCK || !existsSync(AIRLOCK)) {
  console.error(`run.mjs: AIRLOCK_BIN must name the built airlock binary (got ${JSON.stringify(AIRLOCK)})`);
  process.exit(2);
}
const DEBUG = process.env.AIRLOCK_DEBUG_BIN || (AIRLOCK.includes('/debug/') ? AIRLOCK : '');
if (DEBUG && !existsSync(DEBUG)) {
  console.error(`run.mjs: AIRLOCK_DEBUG_BIN names no file (${JSON.stringify(DEBUG)})`);
  process.exit(2);
}
const sh = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/// A hooks.json object with one PreToolUse command hook matching every tool.
const hooksJson = (command, timeout = 30) => ({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command, timeout }] }] } });
/// The same registration as config.toml's inline tables.
const configHooks = (command) =>
  `[[hooks.PreToolUse]]\nmatcher = "*"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(command)}\ntimeout = 30\n`;

/// What `airlock hook ARGS --print-config --client codex` prints, split into its two forms:
/// `json` (the hooks.json object) and `toml` (the config.toml tables).
function printConfig(args) {
  const out = spawnSync(AIRLOCK, ['hook', ...args, '--print-config', '--client', 'codex'], { input: '' });
  if (out.status !== 0) throw new Error(`--print-config ${args.join(' ')}: exit ${out.status}: ${out.stderr}`);
  const text = out.stdout.toString();
  const jsonAt = text.indexOf('# $CODEX_HOME/hooks.json:\n');
  const tomlAt = text.indexOf('\n# or the same entries inline in $CODEX_HOME/config.toml');
  if (jsonAt !== 0 || tomlAt < 0) throw new Error(`--print-config printed no two forms:\n${text}`);
  const json = JSON.parse(text.slice(text.indexOf('\n') + 1, tomlAt));
  const toml = text.slice(text.indexOf('\n', tomlAt + 1) + 1);
  return { json, toml };
}
/// The hooks registered exactly as printed, in `form`; `airlock` found on PATH as printed.
const printed = (form, args) => {
  const { json, toml } = printConfig(args);
  return form === 'hooks.json' ? { hooksJson: json } : { configHooks: toml };
};
const ON_PATH = { PATH: `${dirname(AIRLOCK)}:${process.env.PATH}` };
/// Every string of the tool outputs in the requests Codex sent, at any depth (the scripted
/// calls' own arguments left out: the model wrote those).
function requestStrings(run) {
  const out = [];
  const walk = (v) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  run.requests.forEach((r) => walk((r.body?.input ?? []).filter((item) => !/_call$/.test(item.type ?? ''))));
  return out;
}

const writeScope = (root, extra = '', bin = AIRLOCK) => `${sh(bin)} hook write-scope --root ${sh(root)} --allow AUDIT.md ${extra}`.trim();
const patch = (...hunks) => `*** Begin Patch\n${hunks.join('\n')}\n*** End Patch\n`;
const BLOCKED = 'Command blocked by PreToolUse hook';

/// A probe hook: prints `stdout`, writes `stderr`, exits `code`, for the protocol cases.
function probe(dir, { stdout = '', stderr = '', code = 0, end = `exit ${code}` }) {
  const path = join(dir, 'probe.sh');
  writeFileSync(path, `#!/bin/sh\ncat >/dev/null\nprintf '%s' ${sh(stdout)}\nprintf '%s' ${sh(stderr)} >&2\n${end}\n`, { mode: 0o755 });
  return path;
}
const verdict = (decision, reason) =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, ...(reason ? { permissionDecisionReason: reason } : {}) } });

/// The wrapper that keeps a crash blocking in every client: a failed hook becomes exit 2 with a
/// reason on stderr, which Codex needs (exit 2 alone is a failed hook to it).
const FAIL_CLOSED = ` || { echo 'airlock hook failed; blocking the call' >&2; exit 2; }`;

const ADD_A = { tool: 'apply_patch', patch: patch('*** Add File: a.txt', '+hello') };

/// Each case: a name, how to register, and what must hold. `blocked` is whether the scripted
/// call must be kept from running.
const cases = [];
const wrote = (run, name) => existsSync(join(run.work, name));

// What Codex does with each shape of hook answer: the facts the verdict contract rests on.
for (const [name, answer, blocked] of [
  ['protocol: JSON deny, exit 0', { stdout: verdict('deny', 'probe says no') }, true],
  ['protocol: JSON deny, exit 1', { stdout: verdict('deny', 'probe says no'), code: 1 }, false],
  ['protocol: JSON deny, exit 2, reason on stderr', { stdout: verdict('deny', 'probe says no'), stderr: 'probe says no', code: 2 }, true],
  ['protocol: nothing on stdout, exit 2, reason on stderr', { stderr: 'probe says no', code: 2 }, true],
  ['protocol: nothing, exit 1', { code: 1 }, false],
  // What a crash leaves: under `|| exit 2`, exit 2 and no reason; bare, a signal or an abort.
  ['protocol: nothing, exit 2, empty stderr (the hook fails)', { code: 2 }, false],
  ['protocol: killed by SIGKILL (an out-of-memory kill)', { end: 'kill -9 $$' }, false],
  ['protocol: exit 134 (an abort)', { code: 134 }, false],
  ['protocol: still running at its timeout', { end: 'sleep 20', timeout: 2 }, false],
  ['protocol: JSON ask, exit 0 (unsupported: the hook fails)', { stdout: verdict('ask', 'probe asks') }, false],
  // tool-output's quarantine gate says `continue: false` beside its deny.
  ['protocol: JSON deny with continue false, exit 0 (unsupported: the hook fails)', { stdout: JSON.stringify({ continue: false, stopReason: 'q', ...JSON.parse(verdict('deny', 'no')) }) }, false],
  ['protocol: JSON allow, exit 0', { stdout: verdict('allow') }, false],
  ['protocol: JSON deny with an unknown field, exit 0 (the hook fails)', { stdout: JSON.stringify({ ...JSON.parse(verdict('deny', 'no')), extra: 1 }) }, false],
]) {
  cases.push({
    name,
    async run(dir) {
      const run = await runCodex({ dir, calls: [ADD_A], hooksJson: hooksJson(probe(dir, answer), answer.timeout) });
      return { run, blocked: !wrote(run, 'a.txt'), want: blocked };
    },
  });
}

// What a PostToolUse hook can do to a result under Codex: `decision: block` and `continue: false`
// put their reason in the result's place; `updatedMCPToolOutput` and `additionalContext` leave
// the result as it was.
for (const [name, answer, contained] of [
  ['decision block', { decision: 'block', reason: 'contained by probe' }, true],
  ['continue false', { continue: false, stopReason: 'stopped by probe' }, true],
  ['updatedMCPToolOutput', { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedMCPToolOutput: { content: [{ type: 'text', text: 'REPLACED' }] } } }, false],
  ['additionalContext', { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'probe context' } }, false],
]) {
  cases.push({
    name: `protocol: PostToolUse ${name} ${contained ? 'replaces' : 'does not replace'} an MCP result`,
    async run(dir) {
      const hooks = { hooks: { PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: probe(dir, { stdout: JSON.stringify(answer) }) }] }] } };
      const run = await runCodex({ dir, pages: { p1: 'SECRET-PAYLOAD' }, calls: [{ tool: 'mcp', server: 'mail', name: 'fetch_page', arguments: { id: 'p1' } }], hooksJson: hooks });
      const seen = JSON.stringify(run.requests.map((r) => r.body?.input ?? [])).includes('SECRET-PAYLOAD');
      const check = toolOutput(run, 0) === null ? 'the call never ran' : null;
      // "blocked" here: the result was kept from the model.
      return { run, blocked: !seen, want: contained, check };
    },
  });
}

// A PostToolUse hook that fails the way FAIL_CLOSED makes a crash fail: exit 2, a reason on stderr.
cases.push({
  name: 'protocol: PostToolUse exit 2 with stderr (a crash under the fail-closed wrapper) on an MCP result',
  async run(dir) {
    const hooks = { hooks: { PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `${probe(dir, { end: 'kill -9 $$' })}${FAIL_CLOSED}` }] }] } };
    const run = await runCodex({ dir, pages: { p1: 'SECRET-PAYLOAD' }, calls: [{ tool: 'mcp', server: 'mail', name: 'fetch_page', arguments: { id: 'p1' } }], hooksJson: hooks });
    const seen = requestStrings(run).some((t) => t.includes('SECRET-PAYLOAD'));
    return { run, blocked: !seen, want: true, check: toolOutput(run, 0) === null ? 'the call never ran' : null };
  },
});

// The isError gap, looked at from every hook event Codex 0.171.0 has that runs after a tool:
// a failed MCP call (isError) gets no PostToolUse (Codex runs PostToolUse only for a result it
// counts a success), and the hooks that do run after it — the next call's PreToolUse, the
// turn's Stop — run only once the model has read the result: the request that carries it
// comes first. What they can still do is refuse what the model does next; the next
// PreToolUse's `transcript_path` names the session's record, which holds the result.
cases.push({
  name: 'protocol: a failed MCP call (isError): which hooks run after it, and what they can see',
  async run(dir) {
    const log = join(dir, 'hook-inputs.jsonl');
    const logger = join(dir, 'log-hook.sh');
    writeFileSync(logger, `#!/bin/sh\n{ cat; echo; } >> ${sh(log)}\n`, { mode: 0o755 });
    const entry = [{ matcher: '*', hooks: [{ type: 'command', command: logger, timeout: 10 }] }];
    const hooks = { hooks: { PreToolUse: entry, PostToolUse: entry, Stop: [{ hooks: entry[0].hooks }] } };
    const calls = [
      { tool: 'mcp', server: 'mail', name: 'fail_page', arguments: { id: 'p1' } },
      { tool: 'shell', command: 'echo next' },
    ];
    const run = await runCodex({ dir, pages: { p1: 'SECRET-FAILED-PAYLOAD' }, calls, hooksJson: hooks });
    const inputs = (existsSync(log) ? readFileSync(log, 'utf8') : '').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const events = inputs.map((i) => `${i.hook_event_name}:${i.tool_name ?? ''}`);
    const problems = [];
    const post = inputs.filter((i) => i.hook_event_name === 'PostToolUse' && /fail_page/.test(i.tool_name ?? ''));
    if (post.length) problems.push('a PostToolUse ran for the failed MCP call: the gap is closed, recheck tool-output under Codex');
    // The first request that carries the failed result, and the hooks that ran before it.
    const carried = run.requests.findIndex((r) => JSON.stringify(r.body?.input ?? []).includes('SECRET-FAILED-PAYLOAD'));
    if (carried < 0) problems.push('no request carries the failed result');
    const nextPre = inputs.find((i) => i.hook_event_name === 'PreToolUse' && !/fail_page/.test(i.tool_name ?? ''));
    if (!nextPre) problems.push(`no PreToolUse for the next call; hooks that ran: ${events.join(', ')}`);
    const transcript = nextPre?.transcript_path;
    const holds = transcript && existsSync(transcript) && readFileSync(transcript, 'utf8').includes('SECRET-FAILED-PAYLOAD');
    if (!holds) problems.push(`the next PreToolUse's transcript_path (${JSON.stringify(transcript)}) does not hold the failed result`);
    if (!inputs.some((i) => i.hook_event_name === 'Stop')) problems.push(`no Stop hook ran; hooks that ran: ${events.join(', ')}`);
    console.log(`     hooks run, in order: ${events.join(', ')}; the result reached the model in request ${carried + 1} of ${run.requests.length}`);
    return { run, blocked: false, want: false, check: problems.join('; ') || null };
  },
});

// Write-scope under Codex, registered exactly as `--print-config --client codex` prints it, in
// each of Codex's two forms.
for (const form of ['hooks.json', 'config.toml']) {
  const register = (work) => printed(form, ['write-scope', '--root', work, '--allow', 'AUDIT.md']);
  cases.push({
    name: `write-scope (${form}): a patch inside the scope is applied`,
    async run(dir) {
      const work = join(dir, 'work');
      const run = await runCodex({ dir, calls: [{ tool: 'apply_patch', patch: patch('*** Add File: AUDIT.md', '+ok') }], ...register(work), env: ON_PATH });
      return { run, blocked: !wrote(run, 'AUDIT.md'), want: false };
    },
  });
  cases.push({
    name: `write-scope (${form}): one path out of scope denies the whole patch`,
    async run(dir) {
      const work = join(dir, 'work');
      const calls = [{ tool: 'apply_patch', patch: patch('*** Add File: AUDIT.md', '+ok', '*** Add File: src/x.rs', '+no') }];
      const run = await runCodex({ dir, calls, ...register(work), env: ON_PATH });
      const out = toolOutput(run, 0) ?? '';
      const check = out.includes(BLOCKED) && out.includes('src/x.rs') ? null : `the model was not told why: ${JSON.stringify(out.slice(0, 300))}`;
      return { run, blocked: !wrote(run, 'AUDIT.md') && !wrote(run, 'src/x.rs'), want: true, check };
    },
  });
}

cases.push({
  name: 'write-scope: a shell command is a tool not allowed',
  async run(dir) {
    const work = join(dir, 'work');
    const run = await runCodex({ dir, calls: [{ tool: 'shell', command: 'echo x > shell.txt' }], hooksJson: hooksJson(writeScope(work)) });
    return { run, blocked: !wrote(run, 'shell.txt'), want: true };
  },
});

// The wrappers, on a deny: airlock says it twice (JSON on stdout, exit 2 with the reason on
// stderr); what survives each wrapper decides the cell.
for (const [wrapper, blocked] of [['', true], [' || true', true], [' || exit 2', true], [' || exit 1', false]]) {
  cases.push({
    name: `wrapper${wrapper || ' (bare)'}: write-scope deny`,
    async run(dir) {
      const work = join(dir, 'work');
      const calls = [{ tool: 'apply_patch', patch: patch('*** Add File: src/x.rs', '+no') }];
      const run = await runCodex({ dir, calls, hooksJson: hooksJson(`${writeScope(work)}${wrapper}`) });
      return { run, blocked: !wrote(run, 'src/x.rs'), want: blocked };
    },
  });
}

// The same deny with `--client codex`: it exits 0 once stdout took it, so no wrapper's `||` runs
// and even `|| exit 1` cannot turn it into an allow.
for (const wrapper of ['', ' || true', ' || exit 2', ' || exit 1']) {
  cases.push({
    name: `wrapper${wrapper || ' (bare)'}: write-scope deny, --client codex`,
    async run(dir) {
      const work = join(dir, 'work');
      const calls = [{ tool: 'apply_patch', patch: patch('*** Add File: src/x.rs', '+no') }];
      const run = await runCodex({ dir, calls, hooksJson: hooksJson(`${writeScope(work, '--client codex')}${wrapper}`) });
      const out = toolOutput(run, 0) ?? '';
      const check = out.includes(BLOCKED) && out.includes('src/x.rs') ? null : `the model was not told why: ${JSON.stringify(out.slice(0, 300))}`;
      return { run, blocked: !wrote(run, 'src/x.rs'), want: true, check };
    },
  });
}

// A crash: the probe kills itself, as an out-of-memory kill would. Under `|| exit 2` it blocks
// only because the shell reports the signal ("Killed") on stderr: exit 2 with an empty stderr
// is a failed hook to Codex (the protocol case above).
for (const [wrapper, blocked] of [['', false], [' || exit 2', true], [' || true', false], [' || exit 1', false], [FAIL_CLOSED, true]]) {
  cases.push({
    name: `wrapper${wrapper || ' (bare)'}: a crash (SIGKILL)`,
    async run(dir) {
      const run = await runCodex({ dir, calls: [ADD_A], hooksJson: hooksJson(`${probe(dir, { end: 'kill -9 $$' })}${wrapper}`) });
      return { run, blocked: !wrote(run, 'a.txt'), want: blocked };
    },
  });
}

// Memory exhaustion: the real guard under an address-space limit it cannot start in.
for (const [wrapper, blocked] of [['', false], [' || exit 2', true], [FAIL_CLOSED, true]]) {
  cases.push({
    name: `wrapper${wrapper || ' (bare)'}: memory exhaustion (ulimit -v)`,
    async run(dir) {
      const work = join(dir, 'work');
      const calls = [{ tool: 'apply_patch', patch: patch('*** Add File: AUDIT.md', '+ok') }];
      const command = `(ulimit -v 4000; ${writeScope(work)})${wrapper}`;
      const run = await runCodex({ dir, calls, hooksJson: hooksJson(command) });
      return { run, blocked: !wrote(run, 'AUDIT.md'), want: blocked };
    },
  });
}

// A forced panic, on a call the guard would allow: the guard catches it and denies. The switch
// exists in debug builds only, so the case runs only with one.
if (DEBUG) {
  for (const wrapper of ['', ' || exit 1', ' || true', ' || exit 2']) {
    cases.push({
      name: `wrapper${wrapper || ' (bare)'}: a forced panic (debug build)`,
      async run(dir) {
        const work = join(dir, 'work');
        const calls = [{ tool: 'apply_patch', patch: patch('*** Add File: AUDIT.md', '+ok') }];
        const run = await runCodex({ dir, calls, hooksJson: hooksJson(`${writeScope(work, '', DEBUG)}${wrapper}`), env: { AIRLOCK_WRITE_SCOPE_TEST_PANIC: '1' } });
        return { run, blocked: !wrote(run, 'AUDIT.md'), want: wrapper !== ' || exit 1' };
      },
    });
  }
}

// The send gate on Codex's MCP tool calls to the recording mail server, registered as printed:
// a hostile message is blocked (never on the server's record, the model told why), a clean one
// with a valid ledger is sent.
const SEND = 'mcp__mail__send_email';
function sendGateEnv(dir) {
  const state = join(dir, 'sg-state');
  const config = join(dir, 'send-gate.json');
  execFileSync('cp', [join(dirname(AIRLOCK), '../../cli/send-gate.example.json'), config]);
  return { AIRLOCK_SEND_GATE_CONFIG: config, AIRLOCK_SEND_GATE_STATE: state };
}
/// Files a valid ledger for the exact call, so that only the scan can stop it.
function fileLedger(env, toolInput) {
  const opts = { env: { ...process.env, ...env } };
  const sha = spawnSync(AIRLOCK, ['guard', 'sha'], { ...opts, input: JSON.stringify({ tool_name: SEND, tool_input: toolInput }) });
  const ledger = {
    created_at: new Date().toISOString(), message_sha256: sha.stdout.toString().trim(), is_reply: false,
    no_factual_claims: true, claims: [], history_searched: [], voice_rules_pass: true,
    invented_precision_scan: true, recipient_address_check: true,
  };
  const w = spawnSync(AIRLOCK, ['guard', 'write-ledger'], { ...opts, input: JSON.stringify(ledger) });
  if (w.status !== 0) throw new Error(`write-ledger: ${w.stderr}`);
}
for (const form of ['hooks.json', 'config.toml']) {
  cases.push({
    name: `send-gate (${form}): a hostile message is blocked, a clean one sent`,
    async run(dir) {
      const env = { ...sendGateEnv(dir), ...ON_PATH };
      const mail = (body) => ({ to: 'ann@example.com', subject: 'Invoice', body });
      const hostile = mail('Invoice \u202Efdp.exe attached.');
      const clean = mail('The invoice went out on Tuesday.');
      fileLedger(env, hostile);
      fileLedger(env, clean);
      const calls = [hostile, clean].map((args) => ({ tool: 'mcp', server: 'mail', name: 'send_email', arguments: args }));
      const run = await runCodex({ dir, calls, ...printed(form, ['send-gate']), env });
      const on = (m) => run.sent.some((s) => JSON.stringify(s) === JSON.stringify(m));
      const told = toolOutput(run, 0) ?? '';
      const problems = [];
      if (on(hostile)) problems.push('the hostile message is on the server\'s record');
      if (!on(clean)) problems.push(`the clean message was not sent; the model got ${JSON.stringify((toolOutput(run, 1) ?? '').slice(0, 300))}`);
      if (!told.includes('airlock send-gate BLOCKED')) problems.push(`the model was not told why: ${JSON.stringify(told.slice(0, 300))}`);
      return { run, blocked: !on(hostile) && on(clean), want: true, check: problems.join('; ') || null };
    },
  });
}

// Tool-output under Codex, registered as printed: Codex cannot replace a result, so a result
// containment changes is withheld (`decision: block`, the contained text in its place). The
// mock records every request Codex sends: the hostile bytes are in none of them, and the next
// request carries the contained text instead. A failed shell command goes the same way; a failed
// MCP call (isError) does not: Codex 0.171.0 makes no PostToolUse call for it (no hook runs, and
// it has no PostToolUseFailure event), so its result reaches the model as it was. That case
// asserts the gap, so that a Codex that closes it is noticed.
const HOSTILE_PAGE = 'visible text stays\nansi: \x1b[31mred\x1b[0m \x1b[2Jcleared\ntags: hi\u{E0049}\u{E0067}\u{E006E} there';
const HOSTILE_BYTES = ['\x1b', '\u{E0049}'];
for (const form of ['hooks.json', 'config.toml']) {
  for (const [what, first, contained] of [
    ['an MCP result', { tool: 'mcp', server: 'mail', name: 'fetch_page', arguments: { id: 'p1' } }, true],
    ['a failed shell command\'s output', { tool: 'shell', command: `printf '%s' ${sh(HOSTILE_PAGE)}; exit 3` }, true],
    ['a failed MCP call\'s result (isError: no PostToolUse call, the known gap)', { tool: 'mcp', server: 'mail', name: 'fail_page', arguments: { id: 'p1' } }, false],
  ]) {
    cases.push({
      name: `tool-output (${form}): ${what} ${contained ? 'never reaches the model' : 'reaches the model'}`,
      async run(dir) {
        const calls = [first, { tool: 'mcp', server: 'mail', name: 'fetch_page', arguments: { id: 'p2' } }];
        const run = await runCodex({ dir, pages: { p1: HOSTILE_PAGE, p2: 'a plain page' }, calls, ...printed(form, ['tool-output']), env: ON_PATH });
        const strings = requestStrings(run);
        const leaked = HOSTILE_BYTES.filter((b) => strings.some((t) => t.includes(b)));
        const said = toolOutput(run, 0) ?? '';
        const problems = [];
        if (contained && (!said.includes('visible text stays') || !said.includes('cleared'))) problems.push(`the next request does not carry the contained text: ${JSON.stringify(said.slice(0, 300))}`);
        if (!(toolOutput(run, 1) ?? '').includes('a plain page')) problems.push(`a clean result did not reach the model unchanged: ${JSON.stringify((toolOutput(run, 1) ?? '').slice(0, 200))}`);
        // "blocked": the hostile bytes were kept from the model.
        return { run, blocked: leaked.length === 0, want: contained, check: problems.join('; ') || null };
      },
    });
  }
}

// The entry exactly as `--print-config` prints it for Claude Code (with `onFailure`, a key
// Codex does not know).
cases.push({
  name: 'print-config entry (Claude Code form, onFailure) under Codex: a deny',
  async run(dir) {
    const hooks = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: probe(dir, { stdout: verdict('deny', 'no'), stderr: 'no', code: 2 }), timeout: 30, onFailure: 'block' }] }] } };
    const run = await runCodex({ dir, calls: [ADD_A], hooksJson: hooks });
    return { run, blocked: !wrote(run, 'a.txt'), want: true };
  },
});

// The same probes under Claude Code (both pinned builds of tests/claude), for the columns
// of the matrix that are Claude Code's. Only with CLAUDE=1 (tests/codex/run.sh --full sets it):
// they need tests/claude's packages.
const claudeLib = process.env.CLAUDE === '1' ? await import('../claude/lib.mjs') : null;
if (claudeLib) {
  const { CLIENTS, runClaude } = claudeLib;
  const deny = verdict('deny', 'probe says no');
  for (const client of CLIENTS) {
    for (const [name, answer, wrapper, blocked] of [
      ['JSON deny, exit 0', { stdout: deny }, '', true],
      ['JSON deny, exit 1', { stdout: deny, code: 1 }, '', true],
      ['JSON deny, exit 2, reason on stderr', { stdout: deny, stderr: 'no', code: 2 }, '', true],
      ['JSON deny, exit 2, reason on stderr, || exit 1', { stdout: deny, stderr: 'no', code: 2 }, ' || exit 1', true],
      ['JSON deny, exit 2, reason on stderr, || true', { stdout: deny, stderr: 'no', code: 2 }, ' || true', true],
      ['nothing, exit 2, empty stderr', { code: 2 }, '', true],
      ['a crash (SIGKILL), bare', { end: 'kill -9 $$' }, '', false],
      ['a crash (SIGKILL), || exit 1', { end: 'kill -9 $$' }, ' || exit 1', false],
      ['a crash (SIGKILL), || true', { end: 'kill -9 $$' }, ' || true', false],
      ['a crash (SIGKILL), || exit 2', { end: 'kill -9 $$' }, ' || exit 2', true],
      ['a crash (SIGKILL), fail-closed wrapper', { end: 'kill -9 $$' }, FAIL_CLOSED, true],
      ['still running at its timeout', { end: 'sleep 20', timeout: 2 }, '', false],
      // `onFailure: "block"`, as --print-config prints it: from 2.1.295 a failed hook blocks.
      ['a crash (SIGKILL), bare, onFailure block', { end: 'kill -9 $$', onFailure: true }, '', client.name !== '2.1.87'],
      ['a crash (SIGKILL), || exit 1, onFailure block', { end: 'kill -9 $$', onFailure: true }, ' || exit 1', client.name !== '2.1.87'],
      ['still running at its timeout, onFailure block', { end: 'sleep 20', timeout: 2, onFailure: true }, '', client.name !== '2.1.87'],
    ]) {
      cases.push({
        name: `Claude Code ${client.name}: ${name}`,
        async run(dir) {
          const target = join(dir, 'claude-target.txt');
          const hooks = hooksJson(`${probe(dir, answer)}${wrapper}`, answer.timeout ?? 30).hooks;
          if (answer.onFailure) hooks.PreToolUse[0].hooks[0].onFailure = 'block';
          const run = await runClaude(client, { dir, hooks, calls: [{ name: 'Write', input: { file_path: target, content: 'x' } }] });
          return { run: { ...run, code: run.code === 0 ? 0 : run.code }, blocked: !existsSync(target), want: blocked };
        },
      });
    }
  }
}

// The verdict matrix (matrix.mjs): each guard × client × wrapper × outcome with airlock's real
// binaries. The cells of a failure the debug build makes need AIRLOCK_DEBUG_BIN.
const FAILURES_NEEDING_DEBUG = ['panic', 'sigkill', 'timeout'];
for (const c of matrixCases({ release: AIRLOCK, debug: DEBUG }, claudeLib)) {
  if (DEBUG || !FAILURES_NEEDING_DEBUG.includes(c.cell.outcome)) cases.push(c);
}

const args = process.argv.slice(2);
const table = args.includes('--table');
const only = args.filter((a) => a !== '--table');
// A filter starting with `^` matches the start of a name; any other, anywhere in it.
const matches = (name, o) => (o.startsWith('^') ? name.startsWith(o.slice(1)) : name.includes(o));
const selected = only.length ? cases.filter((c) => only.some((o) => matches(c.name, o))) : cases;
console.log(`Codex end to end: ${CODEX.name}, ${selected.length} case(s)`);
let failed = 0;
const cells = [];
// Two at a time (E2E_JOBS to change it): each case starts a client, a mock and an MCP server.
const queue = [...selected];
async function worker() {
  for (let c = queue.shift(); c; c = queue.shift()) {
    const dir = tempDir('codex');
    let line;
    try {
      const { run, blocked, want, check } = await c.run(dir);
      if (c.cell) cells.push({ cell: c.cell, blocked });
      const problems = [];
      if (run.code !== 0) problems.push(`codex exited ${run.code} ${run.signal ?? ''}: ${run.stderr.slice(-400)}`);
      if (blocked !== want) problems.push(want ? 'the call ran; it must be blocked' : 'the call was blocked; it must run');
      if (check) problems.push(check);
      line = problems.length ? `FAIL ${c.name} (${blocked ? 'blocked' : 'ran'})\n     ${problems.join('\n     ')}\n     (left in ${dir})` : `ok   ${c.name} (${blocked ? 'blocked' : 'ran'})`;
      if (problems.length) failed += 1;
      else rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      failed += 1;
      if (c.cell) cells.push({ cell: c.cell, error: true });
      line = `FAIL ${c.name}: ${error.stack ?? error}`;
    }
    console.log(line);
  }
}
const jobs = Math.max(1, Number.parseInt(process.env.E2E_JOBS ?? '2', 10) || 2);
await Promise.all(Array.from({ length: jobs }, worker));
void TEMP_DIRS;
if (table && cells.length) console.log(`\n${matrixTables(cells)}`);
console.log(failed ? `${failed} of ${selected.length} case(s) failed` : `all ${selected.length} case(s) passed`);
process.exit(failed ? 1 : 0);
