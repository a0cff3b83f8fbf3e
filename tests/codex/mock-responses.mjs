// A scripted stand-in for the OpenAI Responses API, for driving the real Codex CLI headless.
// Each POST /v1/responses is answered, as a server-sent event stream, with the script's next
// tool call (one per turn), then with a final text once the script is spent. The step is the
// number of tool outputs the request's `input` already holds, so a retried request gets the
// same answer. Every request is logged, so a test can read what the model would have seen.
//
// Usage: node mock-responses.mjs SCRIPT.json LOG.jsonl PORTFILE
//   PORTFILE receives {"http": port} once the server listens.
//   SCRIPT.json: {"calls": [{"tool": "apply_patch", "patch": "*** Begin Patch…"},
//                           {"tool": "shell", "command": "echo hi"},
//                           {"tool": "mcp", "server": "mail", "name": "send_email", "arguments": {...}}],
//                 "final": "done"}
//   How a call is sent follows the tools the request offers: `apply_patch` as a custom
//   (freeform) call when offered so, else as a function call; a shell call to whichever of
//   `exec_command`, `shell_command` or `shell` is offered; an MCP call to the offered function
//   whose name ends in the server and tool names.
import { createServer } from 'node:http';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';

const [scriptPath, logPath, portFile] = process.argv.slice(2);
const log = (entry) => appendFileSync(logPath, JSON.stringify(entry) + '\n');

const OUTPUT_TYPES = ['function_call_output', 'custom_tool_call_output'];
const stepOf = (body) => (body.input ?? []).filter((item) => OUTPUT_TYPES.includes(item.type)).length;

/// Every offered tool, flattened: Codex may group tools under a namespace.
function offeredTools(body) {
  const out = [];
  const walk = (tools, prefix) => {
    for (const t of tools ?? []) {
      if (Array.isArray(t.tools)) walk(t.tools, `${prefix}${t.name ?? ''}`);
      else out.push({ ...t, fullName: t.name, namespace: prefix });
    }
  };
  walk(body.tools, '');
  return out;
}

/// The output item that makes the call, or an error naming what the request did not offer.
function callItem(call, tools, n) {
  const id = `call_e2e_${String(n).padStart(4, '0')}`;
  const find = (pred) => tools.find(pred);
  if (call.tool === 'apply_patch') {
    const tool = find((t) => t.name === 'apply_patch');
    if (!tool) return { error: 'apply_patch is not offered' };
    if (tool.type === 'custom') return { item: { type: 'custom_tool_call', id: `ctc_${id}`, call_id: id, name: 'apply_patch', input: call.patch, status: 'completed' } };
    return { item: { type: 'function_call', id: `fc_${id}`, call_id: id, name: 'apply_patch', arguments: JSON.stringify({ input: call.patch }), status: 'completed' } };
  }
  if (call.tool === 'shell') {
    for (const name of ['exec_command', 'shell_command', 'shell']) {
      if (!find((t) => t.name === name && t.type === 'function')) continue;
      const args = name === 'exec_command' ? { cmd: call.command }
        : name === 'shell_command' ? { command: call.command }
        : { command: ['bash', '-lc', call.command] };
      return { item: { type: 'function_call', id: `fc_${id}`, call_id: id, name, arguments: JSON.stringify(args), status: 'completed' } };
    }
    return { error: 'no shell tool is offered' };
  }
  if (call.tool === 'mcp') {
    const tool = find((t) => t.type === 'function' && t.name.endsWith(call.name) && `${t.namespace}${t.name}`.includes(call.server));
    // Behind tool search the MCP tools are not listed up front; the call names them anyway,
    // in the namespace Codex gives a server's tools.
    if (!tool) return { item: { type: 'function_call', id: `fc_${id}`, call_id: id, name: call.name, namespace: `mcp__${call.server}`, arguments: JSON.stringify(call.arguments ?? {}), status: 'completed' } };
    const item = { type: 'function_call', id: `fc_${id}`, call_id: id, name: tool.name, arguments: JSON.stringify(call.arguments ?? {}), status: 'completed' };
    if (tool.namespace) item.namespace = tool.namespace;
    return { item };
  }
  return { error: `unknown scripted tool ${call.tool}` };
}

const sse = (res, type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };

let served = 0;
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => (raw += d));
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(raw || '{}'); } catch { /* logged as is */ }
    const agent = req.method === 'POST' && req.url.endsWith('/responses');
    log({ method: req.method, url: req.url, agent, body });
    if (!agent) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not mocked"}}');
      return;
    }
    const script = JSON.parse(readFileSync(scriptPath, 'utf8'));
    const calls = script.calls ?? [];
    const step = stepOf(body);
    const responseId = `resp_e2e_${++served}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    sse(res, 'response.created', { response: { id: responseId, object: 'response', status: 'in_progress', output: [] } });
    let item;
    if (step < calls.length) {
      const made = callItem(calls[step], offeredTools(body), step);
      if (made.error) log({ mockError: made.error, step });
      item = made.item;
    }
    if (!item) {
      item = { type: 'message', id: `msg_${responseId}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: script.final ?? 'done', annotations: [] }] };
    }
    sse(res, 'response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
    sse(res, 'response.output_item.done', { output_index: 0, item });
    sse(res, 'response.completed', { response: { id: responseId, object: 'response', status: 'completed', output: [item], usage } });
    res.end();
  });
});

server.listen(0, '127.0.0.1', () => {
  writeFileSync(portFile, JSON.stringify({ http: server.address().port }));
});
