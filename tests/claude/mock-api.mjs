// A scripted stand-in for the Anthropic Messages API, for driving a real Claude Code
// build headless. The agent loop's requests (those that offer tools) are answered with
// the script's tool calls in order, one per turn, then with a final text; every other
// request (titles, quota probes, summaries) gets a short text. Every request is logged,
// so a test can read what the model would have received.
//
// Usage: node mock-api.mjs SCRIPT.json LOG.jsonl PORTFILE [TLSDIR]
//   PORTFILE receives {"http": port, "https": port}; with TLSDIR (key.pem, cert.pem) the
//   pages are also served over HTTPS, as WebFetch upgrades every URL to https.
//   SCRIPT.json: {"calls": [{"name": "Write", "input": {...}}, {"batch": [call, ...]}, ...], "final": "done",
//                 "pages": {"id": "text served at GET /page/id, for WebFetch"}}
//   A call with `view` instead of `input` is built from a tool result the model received
//   (view-step.mjs).
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { fromView } from './view-step.mjs';

const [scriptPath, logPath, portFile, tlsDir] = process.argv.slice(2);
// Read per request: the driver fills in the port (known only once this listens).
let script = {};
let calls = [];
const loadScript = () => {
  script = JSON.parse(readFileSync(scriptPath, 'utf8'));
  calls = script.calls ?? [];
};

const log = (entry) => appendFileSync(logPath, JSON.stringify(entry) + '\n');

// The agent loop is the conversation that offers the script's tools.
const isAgentLoop = (body) =>
  Array.isArray(body.tools) &&
  body.tools.some((t) => ['Write', 'Bash', 'Read'].includes(t.name));

// Turn number = how many tool calls the conversation already holds (the client merges
// assistant messages that share an id, so blocks are counted, not messages).
const turnOf = (body) =>
  (body.messages ?? [])
    .filter((m) => m.role === 'assistant' && Array.isArray(m.content))
    .flatMap((m) => m.content)
    .filter((b) => b.type === 'tool_use').length;
let served = 0;

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

// The script's step that starts at tool-call block `turn`: a call, or `{batch: [calls]}`
// for several tool calls in one assistant message (ids count blocks, so a batch of two
// takes two ids).
function stepAt(turn) {
  let at = 0;
  for (const step of calls) {
    const blocks = step.batch ?? [step];
    if (at === turn) return blocks.map((c, i) => ({ ...c, id: `toolu_e2e_${String(at + i).padStart(4, '0')}` }));
    at += blocks.length;
  }
  return null;
}

// A subagent's conversation starts with the prompt its parent gave: one holding
// E2E-SUBAGENT is scripted by `script.subagent` (calls, as above), counted in its own
// conversation.
const isSubagent = (body) => {
  const first = (body.messages ?? []).find((m) => m.role === 'user');
  return JSON.stringify(first?.content ?? '').includes('E2E-SUBAGENT');
};

function reply(body, turn) {
  if (isAgentLoop(body) && isSubagent(body)) {
    const sub = script.subagent ?? [];
    if (turn < sub.length) {
      const id = `toolu_e2e_sub_${String(turn).padStart(4, '0')}`;
      return { content: [{ type: 'tool_use', id, name: sub[turn].name, input: sub[turn].input }], stop_reason: 'tool_use' };
    }
    return { content: [{ type: 'text', text: 'subagent done' }], stop_reason: 'end_turn' };
  }
  // A `view` step is written against what the model was handed (view-step.mjs).
  const step = isAgentLoop(body) ? stepAt(turn)?.map((c) => (c.view ? fromView(c, body) : c)) : null;
  if (step) {
    return {
      content: step.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input })),
      stop_reason: 'tool_use',
    };
  }
  // WebFetch's summariser gets the page in its prompt: answer with the page's text
  // between the markers, as a model quoting it would.
  const quoted = /E2E-PAGE-BEGIN([\s\S]*?)E2E-PAGE-END/.exec(JSON.stringify(body.messages ?? []));
  const text = isAgentLoop(body)
    ? (script.final ?? 'done')
    : quoted ? JSON.parse(`"${quoted[1]}"`) : 'e2e';
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}

function sse(res, model, message) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  served += 1;
  send('message_start', {
    message: { id: `msg_e2e_${served}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
  });
  message.content.forEach((block, index) => {
    if (block.type === 'tool_use') {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    } else {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', {});
  res.end();
}

const handler = (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch { body = { unparsed: raw.slice(0, 200) }; }
    const path = req.url.split('?')[0];
    loadScript();
    if (req.method === 'POST' && path === '/v1/messages') {
      const turn = turnOf(body);
      const agent = isAgentLoop(body);
      const message = reply(body, turn);
      log({ path, agent, turn, stream: !!body.stream, tools: agent ? body.tools.map((t) => t.name) : undefined, messages: agent ? body.messages : undefined, answered: message.content });
      const model = body.model ?? 'claude-e2e';
      if (body.stream) return sse(res, model, message);
      res.writeHead(200, { 'content-type': 'application/json' });
      served += 1;
      return res.end(JSON.stringify({ id: `msg_e2e_${served}`, type: 'message', role: 'assistant', model, ...message, stop_sequence: null, usage }));
    }
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ input_tokens: 10 }));
    }
    if (req.method === 'GET' && path.startsWith('/page/') && script.pages?.[path.slice(6)] !== undefined) {
      log({ path, method: req.method, page: true });
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return res.end(script.pages[path.slice(6)]);
    }
    log({ path, method: req.method, other: true });
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'e2e mock' } }));
  });
};

const server = createServer(handler);
const tls = tlsDir
  ? createTlsServer({ key: readFileSync(`${tlsDir}/key.pem`), cert: readFileSync(`${tlsDir}/cert.pem`) }, handler)
  : null;
const ports = {};
const ready = () => {
  if (ports.http && (!tls || ports.https)) writeFileSync(portFile, JSON.stringify(ports));
};
server.listen(0, '127.0.0.1', () => { ports.http = server.address().port; ready(); });
tls?.listen(0, '127.0.0.1', () => { ports.https = tls.address().port; ready(); });
