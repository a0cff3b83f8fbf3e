// airlock as WebAssembly for workerd (Cloudflare Workers, wrangler): the runtime
// forbids compiling wasm from bytes, so the module is imported as a wasm module, the
// way its bundler and config both provide it; instantiating a compiled module is
// synchronous, so no top-level await is needed. Otherwise as index.js.

import module from './airlock.wasm';

import { bind } from './lib/api.js';

export * from './lib/api.js';

bind(module);
