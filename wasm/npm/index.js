// airlock as WebAssembly: the Node binding's API (a drop-in replacement for the
// reference module `sanitize.mjs`) for browsers, Node >= 20 and Deno. Importing it
// instantiates airlock.wasm once (a top-level await); the named functions are then
// synchronous. workerd and Cloudflare Workers resolve the package's `workerd`
// condition to index.workerd.js, which imports the module as a wasm module.
//
// The bytes come from `new URL('./airlock.wasm', import.meta.url)`, which bundlers
// recognise as an asset: fetched where fetch reads that URL (browsers, Deno, also
// from file:), read with node:fs from a file: URL in Node (its fetch does not take
// file: URLs). Pass your own module to `createAirlock({ module })` to load it
// another way (an inlined copy, a CSP that forbids fetch).

import { bind } from './lib/api.js';

export * from './lib/api.js';

const url = new URL('./airlock.wasm', import.meta.url);

async function compile() {
  if (url.protocol === 'file:' && typeof globalThis.Deno === 'undefined') {
    const { readFile } = await import('node:fs/promises');
    return WebAssembly.compile(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`airlock: cannot load ${url}: HTTP ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  // Streaming compilation needs the wasm MIME type; a static server may not send it.
  if (type.startsWith('application/wasm') && WebAssembly.compileStreaming) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

bind(await compile());
