// Driving one headless Claude Code run against the mock API: a temporary HOME, no
// network but the mock on 127.0.0.1, every non-essential request switched off.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = dirname(fileURLToPath(import.meta.url));

/// The pinned builds: one that hands hooks the raw `file_path`, and a current one.
export const CLIENTS = [
  { name: '2.1.87', bin: join(HERE, 'node_modules/claude-raw-paths/cli.js'), node: true },
  // The native binary of the platform package itself: it does not depend on the
  // wrapper's postinstall having copied it over its placeholder.
  { name: '2.1.332', bin: join(HERE, `node_modules/@anthropic-ai/claude-code-linux-${arch() === 'arm64' ? 'arm64' : 'x64'}/claude`), node: false },
];

/// Every directory made for a run, so the runner can remove them when it is done.
export const TEMP_DIRS = [];
export const tempDir = (tag) => {
  const dir = mkdtempSync(join(tmpdir(), `airlock-e2e-${tag}-`));
  TEMP_DIRS.push(dir);
  return dir;
};

const readJsonl = (path) =>
  existsSync(path)
    ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    : [];

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

/// One run: `calls` are the scripted tool calls; `hooks` the settings' hooks object;
/// `pages` what the MCP server's fetch_page serves. Returns what happened: the client's
/// result, every agent-loop request the mock saw, every message the MCP server sent.
export async function runClaude(client, { dir, calls, subagent, hooks, pages = {}, env = {}, cwd, tlsDir, args: extra = [], timeoutMs = 180000 }) {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const scriptPath = join(dir, 'script.json');
  const logPath = join(dir, 'requests.jsonl');
  const portPath = join(dir, 'port');
  const sentPath = join(dir, 'sent.jsonl');
  const pagesPath = join(dir, 'pages.json');
  writeFileSync(scriptPath, JSON.stringify({ calls, subagent, final: 'done', pages }));
  writeFileSync(pagesPath, JSON.stringify(pages));
  const settingsPath = join(dir, 'settings.json');
  writeFileSync(settingsPath, JSON.stringify({ hooks, skipWebFetchPreflight: true }));
  const mcpPath = join(dir, 'mcp.json');
  writeFileSync(mcpPath, JSON.stringify({
    mcpServers: { mail: { type: 'stdio', command: process.execPath, args: [join(HERE, 'mcp-mail.mjs'), sentPath, pagesPath] } },
  }));

  // A second run in the same directory (`--resume`) must not read the first mock's
  // port: that one is dead, and the client would retry against it until killed.
  rmSync(portPath, { force: true });
  const mockArgs = [join(HERE, 'mock-api.mjs'), scriptPath, logPath, portPath, ...(tlsDir ? [tlsDir] : [])];
  const mock = spawn(process.execPath, mockArgs, { stdio: 'ignore' });
  try {
    const ports = JSON.parse(await waitFor(portPath, 10000));
    const port = ports.http;
    const childEnv = {
      PATH: process.env.PATH,
      HOME: home,
      TMPDIR: process.env.TMPDIR ?? '/tmp',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      ANTHROPIC_API_KEY: 'sk-ant-e2e-not-a-key',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
      ENABLE_TOOL_SEARCH: 'false',
      MCP_TIMEOUT: '20000',
      // Root may run bypassPermissions only inside a declared sandbox.
      IS_SANDBOX: '1',
      ...(tlsDir ? { NODE_EXTRA_CA_CERTS: join(tlsDir, 'cert.pem') } : {}),
      ...env,
    };
    const args = [
      '-p', 'Run the scripted steps.',
      '--output-format', 'json',
      '--model', 'claude-sonnet-4-5',
      '--settings', settingsPath,
      '--mcp-config', mcpPath,
      '--strict-mcp-config',
      '--permission-mode', 'bypassPermissions',
      ...extra,
    ];
    const [cmd, argv] = client.node ? [process.execPath, [client.bin, ...args]] : [client.bin, args];
    for (const c of calls) {
      if (typeof c.input?.url === 'string') c.input.url = c.input.url.replace('{HTTPS_PORT}', ports.https);
    }
    writeFileSync(scriptPath, JSON.stringify({ calls, subagent, final: 'done', pages }));
    const out = await runChild(cmd, argv, { cwd: cwd ?? dir, env: childEnv }, timeoutMs);
    let result = null;
    try { result = JSON.parse(out.stdout); } catch { /* reported below */ }
    return {
      ...out,
      result,
      requests: readJsonl(logPath).filter((r) => r.agent),
      sent: readJsonl(sentPath),
    };
  } finally {
    mock.kill('SIGKILL');
  }
}

/// What the model received for the tool call `id`: the tool_result block of the first
/// agent-loop request that carries it.
export function toolResult(run, id) {
  for (const req of run.requests) {
    for (const m of req.messages ?? []) {
      if (m.role !== 'user' || !Array.isArray(m.content)) continue;
      const hit = m.content.find((b) => b.type === 'tool_result' && b.tool_use_id === id);
      if (hit) return hit;
    }
  }
  return null;
}

/// The id the mock gives the tool call at position `n` of the script.
export const callId = (n) => `toolu_e2e_${String(n).padStart(4, '0')}`;

/// A throw-away self-signed certificate for 127.0.0.1 (WebFetch fetches over HTTPS only),
/// or null when openssl is not installed.
export function makeTls(dir) {
  const r = spawnSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  return r.status === 0 ? dir : null;
}
