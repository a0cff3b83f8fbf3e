// A local stdio MCP server ("mail") that records every message it is asked to send and
// serves scripted pages, for the end-to-end test. Newline-delimited JSON-RPC 2.0.
//
// Usage: node mcp-mail.mjs SENT.jsonl [PAGES.json]
//   Every send_email call is appended to SENT.jsonl as its arguments, before answering.
//   fetch_page {"id"} answers with PAGES.json[id] as one text content block; fail_page
//   {"id"} the same as an error result (isError).
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [sentPath, pagesPath] = process.argv.slice(2);
const pages = pagesPath ? JSON.parse(readFileSync(pagesPath, 'utf8')) : {};

const tools = [
  {
    name: 'send_email',
    description: 'Send an email.',
    inputSchema: { type: 'object', properties: { to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' }, attachments: { type: 'array' } }, required: ['to', 'body'] },
  },
  {
    name: 'fail_page',
    description: 'Fetch a stored page by id, as an error result (isError).',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    // Read-only: the client may run it beside other read-only calls of the same message.
    annotations: { readOnlyHint: true },
  },
  {
    name: 'fetch_page',
    description: 'Fetch a stored page by id.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
];

const write = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');

function answer(method, params) {
  switch (method) {
    case 'initialize':
      return { protocolVersion: params?.protocolVersion ?? '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'mail', version: '1.0.0' } };
    case 'tools/list':
      return { tools };
    case 'tools/call': {
      const args = params?.arguments ?? {};
      if (params?.name === 'send_email') {
        appendFileSync(sentPath, JSON.stringify(args) + '\n');
        return { content: [{ type: 'text', text: `sent to ${args.to}` }] };
      }
      if (params?.name === 'fail_page') {
        return { content: [{ type: 'text', text: pages[args.id] ?? 'no such page' }], isError: true };
      }
      if (params?.name === 'fetch_page') {
        return { content: [{ type: 'text', text: pages[args.id] ?? 'no such page' }] };
      }
      return { content: [{ type: 'text', text: 'unknown tool' }], isError: true };
    }
    case 'ping':
      return {};
    default:
      return null;
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return; // a notification
  const result = answer(msg.method, msg.params);
  if (result === null) write({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'method not found' } });
  else write({ jsonrpc: '2.0', id: msg.id, result });
});
