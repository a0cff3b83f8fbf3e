// Driving one headless Codex run (`codex exec`) against the mock Responses API: a temporary
// HOME and CODEX_HOME, no network but the mock on 127.0.0.1, the recording MCP mail server of
// the Claude Code test.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export { tempDir, TEMP_DIRS } from '../claude/lib.mjs';

export const HERE = dirname(fileURLToPath(import.meta.url));
const MCP_MAIL = join(HERE, '../claude/mcp-mail.mjs');

const TRIPLE = arch() === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';
/// The native binary of the platform package, not the node launcher in front of it.
export const CODEX = {
  name: 'Codex 0.171.0',
  bin: join(HERE, `node_modules/@openai/codex-linux-${arch() === 'arm64' ? 'arm64' : 'x64'}/vendor/${TRIPLE}/bin/codex`),
};

const readJsonl = (path) =>
  existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];

function waitFor(path, ms) {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (existsSync(path) && readFileSync(path, 'utf8').endsWith('}')) return resolve(readFileSync(path, 'utf8'));
      if (Date.now() > end) return reject(new Error(`timed out waiting for ${path}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

function runChild(cmd, args, opts, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const tomlString = (s) => JSON.stringify(s);

/// One run. `calls`: the scripted tool calls (see mock-responses.mjs). `hooksJson`: the object
/// written to CODEX_HOME/hooks.json, or null. `configHooks`: TOML text appended to config.toml
/// (the inline `[hooks]` form), or ''. `pages`: what the MCP server's fetch_page serves. Returns the client's exit and output, every request the
/// mock saw, every message the MCP server sent, and the files left in the workspace.
export async function runCodex({ dir, calls, hooksJson = null, configHooks = '', pages = {}, env = {}, timeoutMs = 120000 }) {
  const home = join(dir, 'home');
  const codexHome = join(dir, 'codex-home');
  const work = join(dir, 'work');
  for (const d of [home, codexHome, work]) mkdirSync(d, { recursive: true });
  const scriptPath = join(dir, 'script.json');
  const logPath = join(dir, 'requests.jsonl');
  const portPath = join(dir, 'port');
  const sentPath = join(dir, 'sent.jsonl');
  const pagesPath = join(dir, 'pages.json');
  writeFileSync(pagesPath, JSON.stringify(pages));
  writeFileSync(scriptPath, JSON.stringify({ calls, final: 'done' }));
  rmSync(portPath, { force: true });
  const mock = spawn(process.execPath, [join(HERE, 'mock-responses.mjs'), scriptPath, logPath, portPath], { stdio: 'ignore' });
  try {
    const { http: port } = JSON.parse(await waitFor(portPath, 10000));
    const config = [
      'model = "gpt-5.5"',
      'model_provider = "mock"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'check_for_update_on_startup = false',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = ${tomlString(`http://127.0.0.1:${port}/v1`)}`,
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '[mcp_servers.mail]',
      `command = ${tomlString(process.execPath)}`,
      `args = [${tomlString(MCP_MAIL)}, ${tomlString(sentPath)}, ${tomlString(pagesPath)}]`,
      '[analytics]',
      'enabled = false',
      configHooks,
    ].join('\n');
    writeFileSync(join(codexHome, 'config.toml'), config + '\n');
    if (hooksJson) writeFileSync(join(codexHome, 'hooks.json'), JSON.stringify(hooksJson, null, 2));
    const childEnv = {
      PATH: process.env.PATH,
      HOME: home,
      CODEX_HOME: codexHome,
      TMPDIR: process.env.TMPDIR ?? '/tmp',
      OPENAI_API_KEY: 'sk-e2e-not-a-key',
      RUST_LOG: 'warn',
      ...env,
    };
    const args = [
      'exec', '--skip-git-repo-check', '--json',
      '--dangerously-bypass-approvals-and-sandbox',
      // The hooks are the test's own, written just above; trust would otherwise be asked
      // interactively, and an untrusted hook does not run.
      '--dangerously-bypass-hook-trust',
      '-C', work,
      'Run the scripted steps.',
    ];
    const out = await runChild(CODEX.bin, args, { cwd: work, env: childEnv }, timeoutMs);
    const events = out.stdout.split('\n').filter(Boolean).flatMap((l) => { try { return [JSON.parse(l)]; } catch { return []; } });
    return { ...out, events, work, requests: readJsonl(logPath), sent: readJsonl(sentPath) };
  } finally {
    mock.kill('SIGKILL');
  }
}

/// What the model received for scripted call `n`: the output item of the first request that
/// carries it, as text.
export function toolOutput(run, n) {
  const id = `call_e2e_${String(n).padStart(4, '0')}`;
  for (const r of run.requests) {
    for (const item of r.body?.input ?? []) {
      if ((item.type === 'function_call_output' || item.type === 'custom_tool_call_output') && item.call_id === id) {
        return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
      }
    }
  }
  return null;
}
