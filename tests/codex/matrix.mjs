// The verdict matrix of cli/CLIENTS.md, with airlock's real binaries: each guard × each client
// × each wrapper × each outcome, one client run a cell. What a cell must show is in EXPECTED
// below, written from a run; a cell that changes fails the run, and `--table` prints the
// tables of cli/CLIENTS.md from what ran.
//
// Outcomes: `deny` and `allow` are calls the guard decides (release build); `panic` (each
// guard's own debug-build switch, caught by the guard), `sigkill` (the guard kills itself
// before it answers, as an out-of-memory kill would) and `timeout` (it stalls before its own
// deadline is armed, so the client's `timeout` ends it) run the debug build with
// AIRLOCK_HOOK_TEST_FAILURE (hooks/src/verdict.rs); `oom` is the release build started
// under `ulimit -v 4000`. Every failure is on a call the guard would let through (tool-output:
// a hostile result it would contain), so "blocked" there is the guard failing closed.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { CODEX, runCodex } from './lib.mjs';

const sh = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/// The wrappers, as a hook's author writes them; the last is what `--print-config` prints
/// (`airlock_hooks::codex::FAIL_CLOSED`).
export const WRAPPERS = [
  ['bare', ''],
  ['|| exit 1', ' || exit 1'],
  ['|| true', ' || true'],
  ['|| exit 2', ' || exit 2'],
  ['fail-closed', " || { echo 'airlock hook failed, so the call is blocked' >&2; exit 2; }"],
];
export const OUTCOMES = ['deny', 'allow', 'panic', 'sigkill', 'timeout', 'oom'];
const GUARDS = ['write-scope', 'send-gate', 'tool-output', 'quarantine-gate'];
/// Every cell's hook `timeout`, in seconds: a stalled guard sleeps well past it.
const HOOK_TIMEOUT = 5;

/// What each cell shows, by client and guard: a row a wrapper (WRAPPERS' order), a letter an
/// outcome (OUTCOMES' order): B blocked, R runs. A client without a guard has no rows.
/// Blocking is right for every outcome but `allow`; an R there under another outcome is a
/// bold cell of cli/CLIENTS.md. Written from `tests/codex/run.sh --full` (Dec 2026).
export const EXPECTED = {
  'Codex 0.171.0': {
    'write-scope': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
    'send-gate': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
    'tool-output': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
  },
  'Claude Code 2.1.87': {
    'write-scope': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
    'send-gate': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
    // A PostToolUse hook's exit 2 is shown beside the result, not in its place.
    'tool-output': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBRRR'],
    'quarantine-gate': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
  },
  'Claude Code 2.1.332': {
    'write-scope': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
    'send-gate': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
    // A PostToolUse hook's exit 2 is shown beside the result, not in its place.
    'tool-output': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBRRR'],
    'quarantine-gate': ['BRBRRR', 'BRBRRR', 'BRBRRR', 'BRBBRB', 'BRBBRB'],
  },
};

/// The environment of a failure outcome for `guard` (debug build).
function failureEnv(guard, outcome) {
  if (outcome === 'panic') {
    return {
      'write-scope': { AIRLOCK_WRITE_SCOPE_TEST_PANIC: '1' },
      'send-gate': { AIRLOCK_SEND_GATE_TEST_PANIC: '1' },
      'tool-output': { AIRLOCK_TOOL_OUTPUT_TEST_PANIC: '1' },
      'quarantine-gate': { AIRLOCK_HOOK_TEST_FAILURE: 'quarantine-gate:panic' },
    }[guard];
  }
  if (outcome === 'sigkill' || outcome === 'timeout') {
    return { AIRLOCK_HOOK_TEST_FAILURE: `${guard}:${outcome === 'sigkill' ? 'sigkill' : 'stall'}` };
  }
  return {};
}

const HOSTILE_PAGE = 'visible text stays\nansi: \x1b[31mred\x1b[0m \x1b[2Jcleared\ntags: hi\u{E0049}\u{E0067}\u{E006E} there';
const HOSTILE_BYTES = ['\x1b', '\u{E0049}'];
const PLAIN_PAGE = 'a plain page';
const SEND = 'mcp__mail__send_email';
const mail = (body) => ({ to: 'ann@example.com', subject: 'Invoice', body });
const HOSTILE_MAIL = mail('Invoice \u202Efdp.exe attached.');
const CLEAN_MAIL = mail('The invoice went out on Tuesday.');

/// Every string anywhere in `value`.
function strings(value) {
  const out = [];
  const walk = (v) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return out;
}

/// The send gate's configuration and state for one cell, and a valid ledger for `message`,
/// so that only the scan (or a failure) can stop it.
function sendGateSetup(release, dir, message) {
  const env = {
    AIRLOCK_SEND_GATE_CONFIG: join(dir, 'send-gate.json'),
    AIRLOCK_SEND_GATE_STATE: join(dir, 'sg-state'),
  };
  execFileSync('cp', [join(dirname(release), '../../cli/send-gate.example.json'), env.AIRLOCK_SEND_GATE_CONFIG]);
  const opts = { env: { ...process.env, ...env } };
  const sha = spawnSync(release, ['guard', 'sha'], { ...opts, input: JSON.stringify({ tool_name: SEND, tool_input: message }) });
  const ledger = {
    created_at: new Date().toISOString(), message_sha256: sha.stdout.toString().trim(), is_reply: false,
    no_factual_claims: true, claims: [], history_searched: [], voice_rules_pass: true,
    invented_precision_scan: true, recipient_address_check: true,
  };
  const w = spawnSync(release, ['guard', 'write-ledger'], { ...opts, input: JSON.stringify(ledger) });
  if (w.status !== 0) throw new Error(`write-ledger: ${w.stderr}`);
  return env;
}

/// The command of one cell: the guard's real binary, its flags, the outcome's limits, the
/// wrapper.
function command(bin, guard, outcome, wrapper, { root, codex }) {
  const client = codex ? ' --client codex' : '';
  const args = {
    'write-scope': `hook write-scope --root ${sh(root)} --allow AUDIT.md${client}`,
    'send-gate': `hook send-gate${client}`,
    'tool-output': `hook tool-output${client}`,
    'quarantine-gate': `hook tool-output --quarantine-gate${client}`,
  }[guard];
  const guardCommand = `${sh(bin)} ${args}`;
  return outcome === 'oom' ? `(ulimit -v 4000; ${guardCommand})${wrapper}` : `${guardCommand}${wrapper}`;
}

const event = (guard) => (guard === 'tool-output' ? 'PostToolUse' : 'PreToolUse');
const hooksObject = (guard, cmd) => ({ [event(guard)]: [{ matcher: '*', hooks: [{ type: 'command', command: cmd, timeout: HOOK_TIMEOUT }] }] });

/// One Codex cell: the scripted call, and whether it was blocked.
async function codexCell(bins, dir, guard, outcome, wrapper) {
  const bin = ['panic', 'sigkill', 'timeout'].includes(outcome) ? bins.debug : bins.release;
  const work = join(dir, 'work');
  const cmd = command(bin, guard, outcome, wrapper, { root: work, codex: true });
  const env = failureEnv(guard, outcome);
  const hooksJson = { hooks: hooksObject(guard, cmd) };
  if (guard === 'write-scope') {
    const file = outcome === 'deny' ? 'src/x.rs' : 'AUDIT.md';
    const calls = [{ tool: 'apply_patch', patch: `*** Begin Patch\n*** Add File: ${file}\n+x\n*** End Patch\n` }];
    const run = await runCodex({ dir, calls, hooksJson, env });
    return { run, blocked: !existsSync(join(run.work, file)) };
  }
  if (guard === 'send-gate') {
    const message = outcome === 'deny' ? HOSTILE_MAIL : CLEAN_MAIL;
    const gateEnv = sendGateSetup(bins.release, dir, message);
    const calls = [{ tool: 'mcp', server: 'mail', name: 'send_email', arguments: message }];
    const run = await runCodex({ dir, calls, hooksJson, env: { ...gateEnv, ...env } });
    return { run, blocked: !run.sent.some((s) => JSON.stringify(s) === JSON.stringify(message)) };
  }
  // tool-output: a hostile result (a plain one for `allow`) must not reach the model.
  const page = outcome === 'allow' ? PLAIN_PAGE : HOSTILE_PAGE;
  const calls = [{ tool: 'mcp', server: 'mail', name: 'fetch_page', arguments: { id: 'p1' } }];
  const run = await runCodex({ dir, pages: { p1: page }, calls, hooksJson, env });
  const seen = strings(run.requests.map((r) => (r.body?.input ?? []).filter((item) => !/_call$/.test(item.type ?? ''))));
  const reached = outcome === 'allow'
    ? seen.some((t) => t.includes(PLAIN_PAGE))
    : HOSTILE_BYTES.some((b) => seen.some((t) => t.includes(b)));
  return { run, blocked: !reached };
}

/// One Claude Code cell.
async function claudeCell(client, runClaude, bins, dir, guard, outcome, wrapper) {
  const bin = ['panic', 'sigkill', 'timeout'].includes(outcome) ? bins.debug : bins.release;
  const proj = join(dir, 'proj');
  mkdirSync(proj, { recursive: true });
  const cmd = command(bin, guard, outcome, wrapper, { root: proj, codex: false });
  const env = failureEnv(guard, outcome);
  const hooks = hooksObject(guard, cmd);
  if (guard === 'write-scope' || guard === 'quarantine-gate') {
    const file = join(proj, guard === 'write-scope' && outcome === 'deny' ? 'src/x.rs' : 'AUDIT.md');
    const session = randomUUID();
    const state = join(dir, 'to-state');
    if (guard === 'quarantine-gate' && outcome === 'deny') {
      // The session a failed tool's hostile error marked (tools/claude's quarantine cases
      // mark it through PostToolUseFailure; here the marker is put in place).
      mkdirSync(join(state, 'quarantined'), { recursive: true });
      writeFileSync(join(state, 'quarantined', session), JSON.stringify({ session_id: session, tool_name: 'Bash', reason: 'e2e' }) + '\n');
    }
    const run = await runClaude(client, {
      dir, cwd: proj, hooks, calls: [{ name: 'Write', input: { file_path: file, content: 'x\n' } }],
      env: { ...env, AIRLOCK_TOOL_OUTPUT_STATE: state }, args: ['--session-id', session],
    });
    return { run, blocked: !existsSync(file) };
  }
  if (guard === 'send-gate') {
    const message = outcome === 'deny' ? HOSTILE_MAIL : CLEAN_MAIL;
    const gateEnv = sendGateSetup(bins.release, dir, message);
    const run = await runClaude(client, { dir, cwd: proj, hooks, calls: [{ name: SEND, input: message }], env: { ...gateEnv, ...env } });
    return { run, blocked: !run.sent.some((s) => JSON.stringify(s) === JSON.stringify(message)) };
  }
  const page = outcome === 'allow' ? PLAIN_PAGE : HOSTILE_PAGE;
  const run = await runClaude(client, { dir, cwd: proj, hooks, pages: { p1: page }, calls: [{ name: 'mcp__mail__fetch_page', input: { id: 'p1' } }], env });
  const seen = strings(run.requests.flatMap((r) => (r.messages ?? []).filter((m) => m.role === 'user')));
  const reached = outcome === 'allow'
    ? seen.some((t) => t.includes(PLAIN_PAGE))
    : HOSTILE_BYTES.some((b) => seen.some((t) => t.includes(b)));
  return { run, blocked: !reached };
}

/// The matrix's cases, in run.mjs's shape plus `cell`. `bins`: {release, debug}; `claude`:
/// tests/claude's lib (CLIENTS, runClaude) for Claude Code's columns, or null.
export function matrixCases(bins, claude) {
  const clients = [{ name: CODEX.name, codex: true }];
  for (const c of claude?.CLIENTS ?? []) clients.push({ name: `Claude Code ${c.name}`, claude: c });
  const out = [];
  for (const client of clients) {
    for (const guard of GUARDS) {
      const rows = EXPECTED[client.name]?.[guard];
      if (!rows) continue;
      WRAPPERS.forEach(([wrapperName, wrapper], w) => {
        OUTCOMES.forEach((outcome, o) => {
          const want = rows[w][o] === 'B';
          out.push({
            name: `matrix ${client.name}: ${guard}, ${wrapperName}, ${outcome}`,
            cell: { client: client.name, guard, wrapper: wrapperName, outcome },
            async run(dir) {
              const got = client.codex
                ? await codexCell(bins, dir, guard, outcome, wrapper)
                : await claudeCell(client.claude, claude.runClaude, bins, dir, guard, outcome, wrapper);
              // A session the quarantine gate stops may end the client with an error; what
              // the cell measures is whether the call ran.
              if (guard === 'quarantine-gate' && got.run.code !== 0) got.run = { ...got.run, code: 0 };
              return { ...got, want };
            },
          });
        });
      });
    }
  }
  return out;
}

const GUARD_TITLES = {
  'write-scope': 'write-scope (a file write)',
  'send-gate': 'send-gate (an MCP send)',
  'tool-output': 'tool-output (an MCP result)',
  'quarantine-gate': "tool-output's quarantine gate (any call)",
};
const WRAPPER_TITLES = {
  bare: 'bare',
  '|| exit 1': '`\\|\\| exit 1`',
  '|| true': '`\\|\\| true`',
  '|| exit 2': '`\\|\\| exit 2`',
  'fail-closed': 'printed fail-closed',
};

/// The tables of cli/CLIENTS.md from `results` ({cell, blocked} of every matrix case that
/// ran): one a client, a row a guard and wrapper, a column an outcome. A call that ran where
/// it should have been blocked is **bold**; a cell not run is "—".
export function matrixTables(results) {
  const byCell = new Map(results.map((r) => [JSON.stringify(r.cell), r]));
  const clients = [...new Set(results.map((r) => r.cell.client))];
  const lines = [];
  for (const client of clients) {
    lines.push(`#### ${client}`, '');
    lines.push(`| Guard | Wrapper | ${OUTCOMES.join(' | ')} |`);
    lines.push(`|---|---|${OUTCOMES.map(() => '---').join('|')}|`);
    for (const guard of GUARDS) {
      for (const [wrapper] of WRAPPERS) {
        const cells = OUTCOMES.map((outcome) => {
          const r = byCell.get(JSON.stringify({ client, guard, wrapper, outcome }));
          if (!r) return '—';
          if (r.error) return 'error';
          const should = outcome !== 'allow';
          if (r.blocked) return should ? 'blocked' : '**blocked**';
          return should ? '**runs**' : 'runs';
        });
        if (cells.every((c) => c === '—')) continue;
        lines.push(`| ${GUARD_TITLES[guard]} | ${WRAPPER_TITLES[wrapper]} | ${cells.join(' | ')} |`);
      }
    }
    lines.push('');
  }
  return lines.join('\n');
}

/// The matrix cells of a run's output (`ok   matrix CLIENT: GUARD, WRAPPER, OUTCOME (blocked)`
/// lines; a FAIL line counts as what it says ran), so that the tables can be printed from the
/// logs of runs split across processes.
export function cellsFromLog(text) {
  const cells = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const m = /^(ok  |FAIL) matrix (.+?): (.+?), (.+), (\w+)(?: \((blocked|ran)\))?$/.exec(line);
    if (!m) return;
    const [, status, client, guard, wrapper, outcome, said] = m;
    const cell = { client, guard, wrapper, outcome };
    if (said) return cells.push({ cell, blocked: said === 'blocked' });
    if (status !== 'FAIL') return;
    // A FAIL line says what was wrong on the lines under it.
    const detail = lines.slice(i + 1, i + 4).join('\n');
    if (detail.includes('the call ran; it must be blocked')) cells.push({ cell, blocked: false });
    else if (detail.includes('the call was blocked; it must run')) cells.push({ cell, blocked: true });
    else cells.push({ cell, error: true });
  });
  return cells;
}

// `node matrix.mjs LOG…`: the tables from the logs of earlier runs.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { readFileSync } = await import('node:fs');
  const cells = process.argv.slice(2).flatMap((path) => cellsFromLog(readFileSync(path, 'utf8')));
  console.log(matrixTables(cells));
}
