// The way in for deriveFenceToken's text (BENCHMARKS.md, the fence's second round):
// koffi's `const char16_t *` (str16) parameter, which copies the string with
// napi_get_value_string_utf16, against the binding's ucs2Write into a Buffer passed
// as uintptr_t, both calling airlock_fence_token_utf16 on fresh mixed prose of 67 B
// and 64 KiB; process CPU per call. Reports only. With koffi 3.3.4 the str16 side
// corrupted the heap in 2 of 5 runs after going from 67 B to 64 KiB strings
// ("malloc(): unaligned tcache chunk detected"), one reason it is not used.
//
//   node bench/str16.mjs PATH/TO/libairlock.so

import koffi from 'koffi';

const lib = koffi.load(process.argv[2]);
const viaAddr = lib.func('uint32_t airlock_fence_token_utf16(uintptr_t text, size_t text_len, uintptr_t scratch, size_t scratch_cap, uintptr_t out, size_t out_cap, uintptr_t result)');
const viaStr16 = lib.func('uint32_t airlock_fence_token_utf16(const char16_t *text, size_t text_len, uintptr_t scratch, size_t scratch_cap, uintptr_t out, size_t out_cap, uintptr_t result)');
let state = 0x9e3779b9;
function rand(n) { state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; state >>>= 0; return state % n; }
const WORDS = 'the gate is not evidence run suite twice before trusting it flaky tests hide in integration and survive source of truth'.split(' ');
const ODD = ['—', '“quoted”', '…', 'café', 'naïve', '€12', '日本語', '😀', '’s', 'señor'];
function prose(bytes) { const parts = []; let len = 0; for (;;) { const w = rand(14) === 0 ? ODD[rand(ODD.length)] : WORDS[rand(WORDS.length)]; const n = Buffer.byteLength(w); if (len + n + 3 > bytes) break; parts.push(w); len += n + 1; } return Buffer.from(parts.join(' '), 'utf16le').ucs2Slice(); }
const addr = (b) => Number(koffi.address(b));
const units = Buffer.alloc(1 << 18), work = Buffer.alloc(1 << 19), out = Buffer.alloc(64), res = Buffer.alloc(24);
const [U, W, O, R] = [units, work, out, res].map(addr);
for (const bytes of [67, 65536]) {
  const inputs = Array.from({ length: bytes > 1000 ? 128 : 4096 }, () => prose(bytes));
  const sides = {
    'ucs2Write + uintptr_t': (s) => { units.ucs2Write(s, 0); return viaAddr(U, s.length, W, work.length, O, 64, R); },
    'str16 parameter': (s) => viaStr16(s, s.length, W, work.length, O, 64, R),
  };
  for (const s of inputs.slice(0, 8)) { sides['str16 parameter'](s); const a = out.latin1Slice(0, 8); sides['ucs2Write + uintptr_t'](s); if (out.latin1Slice(0, 8) !== a) throw new Error('differ'); }
  const total = { 'ucs2Write + uintptr_t': 0, 'str16 parameter': 0 };
  const calls = bytes > 1000 ? 4000 : 200000;
  for (let r = 0; r < 11; r++) for (const [k, f] of (r % 2 ? Object.entries(sides) : Object.entries(sides).reverse())) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < calls / 10; i++) f(inputs[i % inputs.length]);
    const c = process.cpuUsage(c0);
    if (r > 0) total[k] += c.user + c.system;
  }
  console.log(process.version, bytes, 'B', Object.entries(total).map(([k, t]) => `${k} ${(t * 1000 / calls).toFixed(0)} ns`).join(', '));
}
