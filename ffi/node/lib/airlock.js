// The binding proper: loads libairlock through koffi and wraps each C entry point in a
// function that behaves like the reference module's export of the same name.
//
// sanitizeProse and deriveFenceToken hand the library UTF-16 code units (see "the
// UTF-16 path" below); the other functions cross as UTF-8. Either way the bytes sit
// in scratch Buffers owned by one instance. The
// calls are synchronous and never call back into JavaScript, so an instance can never
// be re-entered while a call uses its scratch; each worker_thread imports its own copy
// of this module (and so owns its own instances and scratch), so nothing here is
// shared between threads. libairlock itself has no global state.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { constants as bufferConstants } from 'node:buffer';

import koffi from 'koffi';

import { ENUMS, FUNCTIONS, STRUCTS } from './abi.js';
import {
  EXPIRES_AT_RE,
  HOST_CLASS_RE,
  LEARNING_KEY_RE,
  PROVENANCE_TOKEN_RE,
} from './constants.js';

const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const BUILD_COMMAND = 'cargo build -p airlock-ffi --release';

const LIBRARY_FILE =
  process.platform === 'win32'
    ? 'airlock.dll'
    : process.platform === 'darwin'
      ? 'libairlock.dylib'
      : 'libairlock.so';

// Status codes of include/airlock.h (lib/abi.js is generated from it).
const { OK, REJECTED, BUFFER_TOO_SMALL, PARSE_ERROR, INTERNAL } = ENUMS.STATUS;
const META_KIND = ENUMS.META_KIND;

/**
 * The profile an options object names: `'reference'` (the default, byte-identical
 * with sanitize.mjs) or `'strict'` (docs/PROFILE-STRICT.md). Anything else throws.
 */
function profileOf(options) {
  const name = options?.profile ?? 'reference';
  if (name === 'reference') return ENUMS.PROFILE.REFERENCE;
  if (name === 'strict') return ENUMS.PROFILE.STRICT;
  throw new TypeError(`airlock: unknown profile ${JSON.stringify(String(name))} (reference or strict)`);
}

// Shapes of include/airlock.h, keyed by the exported RegExp objects.
const SHAPES = new Map([
  [HOST_CLASS_RE, ENUMS.SHAPE.HOST_CLASS],
  [LEARNING_KEY_RE, ENUMS.SHAPE.LEARNING_KEY],
  [EXPIRES_AT_RE, ENUMS.SHAPE.EXPIRES_AT],
  [PROVENANCE_TOKEN_RE, ENUMS.SHAPE.PROVENANCE],
]);

// `frontmatterRefusalReason(doc, { gate })`: the releases airlock_gate names.
const GATES = new Map([
  ['3.20', ENUMS.GATE.V3_20],
  ['3.20.0', ENUMS.GATE.V3_20],
  ['3.21', ENUMS.GATE.V3_21],
  ['3.21.0', ENUMS.GATE.V3_21],
]);

/** The layout of a header struct, as the C compiler lays it out (koffi computes it). */
function layout(name) {
  const fields = Object.fromEntries(STRUCTS[name].map(([field, type]) => [field, type]));
  const type = koffi.struct(`${name}_layout`, fields);
  return {
    size: koffi.sizeof(type),
    ...Object.fromEntries(Object.keys(fields).map((f) => [f, koffi.offsetof(type, f)])),
  };
}
const SUMMARY = layout('airlock_frontmatter_summary');
const TEXT16 = layout('airlock_text16_result');
const ENCODING = ENUMS.ENCODING;
const SPAN = layout('airlock_span');
const ENTRY = layout('airlock_meta_entry');
if (koffi.sizeof('size_t') !== 8) {
  // The scratch words below are read as 64-bit.
  throw new Error('airlock: this binding supports 64-bit platforms only');
}

// Scratch buffers start at this size and grow, up to SCRATCH_MAX, to fit the
// largest input seen; a larger input gets a Buffer of its own for that call only.
const SCRATCH_INITIAL = 64 * 1024;
const SCRATCH_MAX = 4 * 1024 * 1024;

// Larger than any input length; used as "no cap" when the JS-side cut applies.
const NO_CAP = Number.MAX_SAFE_INTEGER;

const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');

const REJECTION_PREFIX = 'reconcile-sanitize: rejecting record — ';
const PARSE_ERROR_PREFIX = 'Malformed frontmatter line: ';

// The package carrying the prebuilt library for this platform (scripts/package-node.sh
// writes it; the binding lists every such package as an optional dependency, and npm
// installs only the one whose `os`, `cpu` and `libc` match): airlock-linux-x64,
// airlock-linux-x64-musl, airlock-darwin-arm64, airlock-win32-x64, …
const PLATFORM_PACKAGE = `airlock-${process.platform}-${process.arch}${isMusl() ? '-musl' : ''}`;

/** Whether this Linux process runs on musl (a Node without glibc reports no glibc version). */
function isMusl() {
  if (process.platform !== 'linux') return false;
  try {
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

/** The platform package's library, when that package is installed. */
function platformLibrary() {
  try {
    const manifest = createRequire(import.meta.url).resolve(`${PLATFORM_PACKAGE}/package.json`);
    return path.join(path.dirname(manifest), LIBRARY_FILE);
  } catch {
    return null;
  }
}

/**
 * Where the library is looked for, in order: the library option, AIRLOCK_LIB, the
 * platform package, the workspace's build output. The first source present is the
 * only one tried.
 */
function candidates(options) {
  if (options.library !== undefined && options.library !== null) {
    return { paths: [path.resolve(String(options.library))], source: 'the library option' };
  }
  const env = process.env.AIRLOCK_LIB;
  if (env !== undefined && env !== '') {
    return { paths: [path.resolve(env)], source: 'AIRLOCK_LIB' };
  }
  const packaged = platformLibrary();
  if (packaged !== null) {
    return { paths: [packaged], source: `the package ${PLATFORM_PACKAGE}` };
  }
  return {
    paths: [
      path.resolve(PACKAGE_DIR, '../../target/release', LIBRARY_FILE),
      path.resolve(PACKAGE_DIR, '../../target/debug', LIBRARY_FILE),
    ],
    source: 'the workspace build output',
  };
}

function loadLibrary(options) {
  const { paths, source } = candidates(options);
  const found = paths.find((p) => existsSync(p));
  if (found === undefined) {
    throw new Error(
      `airlock: cannot find ${LIBRARY_FILE} (from ${source}); tried: ${paths.join(', ')}. ` +
        `Install the package ${PLATFORM_PACKAGE} (a prebuilt library, when one exists for this platform), ` +
        `or build it from the repository root with \`${BUILD_COMMAND}\`, ` +
        'or point to it with createAirlock({ library }) or the AIRLOCK_LIB environment variable.',
    );
  }
  try {
    return { lib: koffi.load(found), path: found };
  } catch (err) {
    throw new Error(`airlock: cannot load ${found}: ${err.message}`, { cause: err });
  }
}

function declare(lib) {
  // Every prototype names a function of the header with its number of parameters.
  const f = (sig) => {
    const [, name, params] = /(airlock_\w+)\(([^)]*)\)/.exec(sig);
    const count = params.trim() === 'void' ? 0 : params.split(',').length;
    if (FUNCTIONS[name] !== count) {
      throw new Error(`airlock: ${name} takes ${FUNCTIONS[name]} parameters in include/airlock.h, not ${count}`);
    }
    return lib.func(sig);
  };
  return {
    version: f('const char *airlock_version(void)'),
    unicodeVersion: f('const char *airlock_unicode_version(void)'),
    envelopeBegin: f('const char *airlock_envelope_begin(void)'),
    envelopeEnd: f('const char *airlock_envelope_end(void)'),
    statusName: f('const char *airlock_status_name(uint32_t status)'),
    metaKeyName: f('const char *airlock_meta_key_name(uint32_t key)'),
    isDangerousInvisible: f('bool airlock_is_dangerous_invisible(uint32_t cp)'),
    isStripped: f('bool airlock_is_stripped(uint32_t cp, uint32_t prev)'),
    strip: f(
      'uint32_t airlock_strip(const void *text, size_t text_len, void *out, size_t out_cap, void *out_len, void *err_offset)',
    ),
    truncate: f(
      'uint32_t airlock_truncate(const void *text, size_t text_len, size_t max_bytes, void *out_len, void *err_offset)',
    ),
    stripProfile: f(
      'uint32_t airlock_strip_profile(uint32_t profile, const void *text, size_t text_len, void *out, size_t out_cap, void *out_len, void *err_offset)',
    ),
    worstCaseProfile: f('size_t airlock_worst_case_len_profile(uint32_t profile, size_t text_len, size_t max_bytes)'),
    sanitizeProfile: f(
      'uint32_t airlock_sanitize_prose_profile(uint32_t profile, const void *text, size_t text_len, const void *field, size_t field_len, size_t max_bytes, void *out, size_t out_cap, void *out_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    noControlProfile: f(
      'uint32_t airlock_check_no_control_profile(uint32_t profile, const void *value, size_t value_len, const void *field, size_t field_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    // The UTF-16 path: pointers declared as uintptr_t and passed as plain numbers
    // (koffi converts a number to a `void *` parameter at about twice the cost of a
    // `uintptr_t`: 216 against 332 ns for a 12-argument call, bench/README).
    sanitize16: f(
      'uint32_t airlock_sanitize_prose_utf16(uintptr_t text, size_t text_len, uintptr_t field, size_t field_len, size_t max_bytes, uintptr_t scratch, size_t scratch_cap, uintptr_t out, size_t out_cap, uintptr_t result)',
    ),
    sanitize16Scratch: f('size_t airlock_sanitize_prose_utf16_scratch_len(size_t text_len, size_t max_bytes)'),
    sanitize16Out: f('size_t airlock_sanitize_prose_utf16_out_len(size_t text_len, size_t max_bytes)'),
    fence16: f(
      'uint32_t airlock_fence_token_utf16(uintptr_t text, size_t text_len, uintptr_t scratch, size_t scratch_cap, uintptr_t out, size_t out_cap, uintptr_t result)',
    ),
    machineToken: f(
      'uint32_t airlock_check_machine_token(const void *value, size_t value_len, const void *field, size_t field_len, uint32_t shape, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    noControl: f(
      'uint32_t airlock_check_no_control(const void *value, size_t value_len, const void *field, size_t field_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    safeDescription: f(
      'uint32_t airlock_check_safe_description(const void *value, size_t value_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    safeGlob: f(
      'uint32_t airlock_check_safe_glob(const void *value, size_t value_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    safeDescriptionProfile: f(
      'uint32_t airlock_check_safe_description_profile(uint32_t profile, const void *value, size_t value_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    safeGlobProfile: f(
      'uint32_t airlock_check_safe_glob_profile(uint32_t profile, const void *value, size_t value_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    noForgery: f(
      'uint32_t airlock_check_no_forgery(const void *text, size_t text_len, const void *field, size_t field_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    fmParse: f(
      'uint32_t airlock_frontmatter_parse(const void *doc, size_t doc_len, void *summary, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    fmRead: f(
      'uint32_t airlock_frontmatter_read(const void *doc, size_t doc_len, void *summary, void *globs, size_t globs_cap, void *meta, size_t meta_cap, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    fmRefusalGate: f(
      'uint32_t airlock_frontmatter_refusal_gate(const void *doc, size_t doc_len, uint32_t gate, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
  };
}

/**
 * The ranges the reference's `isDangerousInvisibleCodePoint` compares with `>=` and
 * `<=` (its other members are single code points compared with `===`), in its
 * order. Only a non-integer or non-number argument is judged by these alone;
 * test/inputs.test.js holds them to libairlock's table.
 */
const REFERENCE_RANGES = Object.freeze([
  [0x200b, 0x200d],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
  [0x2061, 0x2064],
]);

/** A Buffer that is not a slice of Node's shared pool, so its address is its own. */
function ownBuffer(size) {
  return Buffer.allocUnsafeSlow(size);
}

/**
 * The bytes a call on a string of `units` UTF-16 code units needs for `what`,
 * checked against the largest Buffer this Node can make (4 GiB on Node 20), so an
 * input too large for the UTF-16 path fails with its sizes named instead of a
 * bare allocation error.
 */
export function bufferSize(bytes, what, units, limit = BUFFER_LIMIT) {
  if (!(bytes <= limit)) {
    throw new RangeError(
      `airlock: a string of ${units} UTF-16 code units needs a ${bytes}-byte ${what} buffer, ` +
        `above the largest Buffer this Node.js can allocate (${limit} bytes)`,
    );
  }
  return bytes;
}
const BUFFER_LIMIT = bufferConstants.MAX_LENGTH;

/** JSON preview of a rejected value, exactly as the reference builds it. */
function shown(value) {
  return JSON.stringify(typeof value === 'string' ? value.slice(0, 120) : value);
}

/** The reference's rejection, for the cases decided in JavaScript. */
function rejection(field, why, value) {
  return new Error(`${REJECTION_PREFIX}${field} ${why} (got ${shown(value)})`);
}

/**
 * Lone surrogates have no UTF-8 form: Buffer#write encodes each as U+FFFD (EF BF BD).
 * Every operation treats a lone surrogate exactly as it treats U+FFFD (neither is a
 * control, an invisible, pictographic, ASCII or part of a literal; both are one
 * UTF-16 unit and three UTF-8 bytes), and no operation drops, moves or inserts
 * U+FFFD. So the k-th U+FFFD of a result is the k-th U+FFFD-or-lone-surrogate of the
 * input, and putting the original units back gives the reference's result exactly.
 */
function restoreSurrogates(original, result) {
  if (!result.includes('\uFFFD')) return result;
  const units = original.match(/\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g) ?? [];
  let k = 0;
  return result.replace(/\uFFFD/g, (c) => (k < units.length ? units[k++] : c));
}

/** Puts a malformed field name and value preview back into a message built from their U+FFFD forms. */
function restoreMessage(msg, field, value) {
  let out = msg;
  if (typeof field === 'string' && !field.isWellFormed()) {
    const built = `${REJECTION_PREFIX}${field.toWellFormed()} `;
    if (out.startsWith(built)) out = `${REJECTION_PREFIX}${field} ${out.slice(built.length)}`;
  }
  if (typeof value === 'string' && !value.isWellFormed()) {
    const built = ` (got ${shown(value.toWellFormed())})`;
    if (out.endsWith(built)) out = `${out.slice(0, out.length - built.length)} (got ${shown(value)})`;
  }
  return out;
}

/** The reference's cut for a cap that is not a non-negative integer (`used + width > maxBytes`). */
function effectiveCap(maxBytes) {
  const m = typeof maxBytes === 'bigint' ? Number(maxBytes) : Number(maxBytes);
  if (Number.isNaN(m)) return NO_CAP; // every comparison is false: the loop never breaks
  if (m < 0) return 0;
  return Math.min(Math.floor(m), NO_CAP);
}

/**
 * Creates an instance bound to one copy of libairlock.
 *
 * @param {{ library?: string }} [options]
 */
export function createAirlock(options = {}) {
  const { lib, path: libraryPath } = loadLibrary(options ?? {});
  const c = declare(lib);

  // --- per-instance scratch ----------------------------------------------------------
  let inBuf = ownBuffer(SCRATCH_INITIAL);
  let inAddr = Number(koffi.address(inBuf));
  let outBuf = ownBuffer(SCRATCH_INITIAL);
  let outAddr = Number(koffi.address(outBuf));
  let msgBuf = ownBuffer(4096);
  let msgAddr = Number(koffi.address(msgBuf));
  const fieldBuf = ownBuffer(1024);
  const fieldAddr = Number(koffi.address(fieldBuf));
  // [0] out_len, [1] msg_len, [2] err_offset.
  const words = ownBuffer(64);
  const wordsAddr = Number(koffi.address(words));
  const OUT_LEN = wordsAddr;
  const MSG_LEN = wordsAddr + 8;
  const ERR_OFFSET = wordsAddr + 16;
  const u32 = new Uint32Array(words.buffer, words.byteOffset, 16);
  const word = (i) => u32[i * 2] + u32[i * 2 + 1] * 0x1_0000_0000;

  const keyNames = new Map();
  const keyName = (key) => {
    let name = keyNames.get(key);
    if (name === undefined) {
      name = c.metaKeyName(key);
      keyNames.set(key, name);
    }
    return name;
  };

  const fail = (status) =>
    new Error(`airlock: unexpected ${c.statusName(status)} from ${libraryPath} (a bug: please report it)`);

  // Encoding: the text lands in the input scratch (pointer `inP` is its address) or,
  // when too large to keep around, in a Buffer of its own (`inP` is that Buffer).
  let inP = 0;
  let inLen = 0;
  let inOwn = null;
  function encode(str) {
    if (str.length * 3 <= inBuf.length) {
      inLen = inBuf.utf8Write(str, 0);
      inP = inAddr;
      return;
    }
    const need = Buffer.byteLength(str, 'utf8');
    if (need > inBuf.length && need <= SCRATCH_MAX) {
      inBuf = ownBuffer(Math.min(SCRATCH_MAX, Math.max(need, inBuf.length * 2)));
      inAddr = Number(koffi.address(inBuf));
    }
    if (need <= inBuf.length) {
      inLen = inBuf.utf8Write(str, 0);
      inP = inAddr;
    } else {
      inOwn = Buffer.from(str, 'utf8');
      inLen = inOwn.length;
      inP = inOwn;
    }
  }
  const inBytes = () => (inP === inAddr ? inBuf : inOwn);
  // Whether the encoded text is the string's own UTF-8: a lone surrogate encodes as
  // EF BF BD, so text without those bytes needs no closer look (memmem, not a scan
  // of the string's UTF-16).
  const encodedExactly = (str) =>
    inLen < 3 || inBytes().subarray(0, inLen).indexOf(REPLACEMENT) === -1 || str.isWellFormed();
  const release = () => {
    inOwn = null;
  };

  // Field names repeat ('insight', 'title'…): the last one stays encoded.
  let lastField = null;
  let fieldP = fieldAddr;
  let fieldLen = 0;
  function encodeField(field) {
    const f = typeof field === 'string' ? field : `${field}`;
    if (f === lastField) return;
    if (f.length * 3 <= fieldBuf.length) {
      fieldLen = fieldBuf.utf8Write(f, 0);
      fieldP = fieldAddr;
    } else {
      const b = Buffer.from(f, 'utf8');
      fieldLen = b.length;
      fieldP = b;
    }
    lastField = f;
  }

  // An output buffer of at least `cap` bytes: the scratch (grown up to SCRATCH_MAX)
  // or a Buffer of its own.
  let outP = 0;
  let outOwn = null;
  function output(cap) {
    if (cap > outBuf.length && cap <= SCRATCH_MAX) {
      outBuf = ownBuffer(Math.min(SCRATCH_MAX, Math.max(cap, outBuf.length * 2)));
      outAddr = Number(koffi.address(outBuf));
    }
    if (cap <= outBuf.length) {
      outP = outAddr;
      outOwn = null;
      return outBuf.length;
    }
    outOwn = ownBuffer(cap);
    outP = outOwn;
    return cap;
  }
  const outBytes = () => (outOwn === null ? outBuf : outOwn);

  // A rejection message: read from the scratch, or asked again with room enough.
  function message(retry) {
    const len = word(1);
    if (len > msgBuf.length) {
      msgBuf = ownBuffer(len);
      msgAddr = Number(koffi.address(msgBuf));
      retry();
    }
    return msgBuf.toString('utf8', 0, len);
  }

  // --- the UTF-16 path (sanitizeProse, deriveFenceToken) ------------------------------
  //
  // The string goes in as its UTF-16 code units (`ucs2Write`: a copy for a two-byte
  // string, a widening copy for a one-byte one) and comes back as Latin-1
  // (`latin1Slice`: a one-byte string, a copy), as UTF-16 (`ucs2Slice`), or not at
  // all when the library reports it unchanged: V8 never transcodes UTF-8 here.
  // libairlock transcodes with lone surrogates carried through (ffi/src/transcode.rs).
  // Three scratch Buffers per instance: the units, the library's work space, and the
  // result; each grows up to SCRATCH_MAX, a larger call gets Buffers of its own.
  const units16 = { buf: ownBuffer(SCRATCH_INITIAL), addr: 0 };
  const work16 = { buf: ownBuffer(SCRATCH_INITIAL * 4), addr: 0 };
  const out16 = { buf: ownBuffer(SCRATCH_INITIAL * 4), addr: 0 };
  for (const b of [units16, work16, out16]) b.addr = Number(koffi.address(b.buf));
  const result16 = ownBuffer(TEXT16.size);
  const RESULT16 = Number(koffi.address(result16));
  const r16 = new Uint32Array(result16.buffer, result16.byteOffset, TEXT16.size / 4);
  const r16Size = (at) => r16[at / 4] + r16[at / 4 + 1] * 0x1_0000_0000;

  /** A Buffer of at least `bytes` for one call: the scratch `s`, grown if it may be. */
  function room(s, bytes, what, units) {
    if (bytes <= s.buf.length) return s;
    bufferSize(bytes, what, units);
    if (bytes <= SCRATCH_MAX) {
      s.buf = ownBuffer(Math.min(SCRATCH_MAX, Math.max(bytes, s.buf.length * 2)));
      s.addr = Number(koffi.address(s.buf));
      return s;
    }
    const buf = ownBuffer(bytes);
    return { buf, addr: Number(koffi.address(buf)) };
  }

  /** `str`'s code units in a Buffer (the scratch, or one of the call's own). */
  function units(str) {
    const u = room(units16, str.length * 2, 'input', str.length);
    u.buf.ucs2Write(str, 0);
    return u;
  }

  /** The result of a UTF-16 call that returned OK. */
  function decoded16(out, original) {
    const len = r16Size(TEXT16.len);
    const encoding = r16[TEXT16.encoding / 4];
    if (encoding === ENCODING.UNCHANGED) return original;
    if (encoding === ENCODING.LATIN1) return out.buf.latin1Slice(0, len);
    if (encoding === ENCODING.UTF16) return out.buf.ucs2Slice(0, len * 2);
    throw fail(INTERNAL);
  }

  /** airlock_sanitize_prose_utf16 on `str` with the encoded field: the result, or throws. */
  function sanitize16(str, cap, field) {
    const n = str.length;
    const text = units(str);
    const fp = typeof fieldP === 'number' ? fieldP : Number(koffi.address(fieldP));
    // Sufficient bounds without a call for the common sizes (7n + 256 and 8n + 1024
    // are above the library's 3n + worst_case_len(3n, cap) and its out bound); the
    // library's own sizes otherwise.
    const workNeed = n * 7 + 256 <= work16.buf.length ? 0 : Number(c.sanitize16Scratch(n, cap));
    const outNeed = n * 8 + 1024 <= out16.buf.length ? 0 : Number(c.sanitize16Out(n, cap));
    let work = room(work16, workNeed, 'work', n);
    let out = room(out16, outNeed, 'output', n);
    const call = () =>
      c.sanitize16(text.addr, n, fp, fieldLen, cap, work.addr, work.buf.length, out.addr, out.buf.length, RESULT16);
    let st = call();
    if (st === BUFFER_TOO_SMALL) {
      work = room(work16, r16Size(TEXT16.scratch_len), 'work', n);
      out = room(out16, r16Size(TEXT16.len), 'output', n);
      st = call();
    }
    if (st === OK) return decoded16(out, str);
    if (st === REJECTED) {
      const len = r16Size(TEXT16.len);
      if (len > out.buf.length) {
        out = room(out16, len, 'message', n);
        if (call() !== REJECTED) throw fail(INTERNAL);
      }
      throw new Error(restoreMessage(out.buf.utf8Slice(0, len), field, str));
    }
    throw fail(st);
  }

  function fence16(str) {
    const n = str.length;
    const text = units(str);
    const work = room(work16, n * 3, 'work', n);
    const st = c.fence16(text.addr, n, work.addr, work.buf.length, out16.addr, out16.buf.length, RESULT16);
    if (st !== OK) throw fail(st);
    return decoded16(out16, str);
  }

  // --- prose ---------------------------------------------------------------------------

  /**
   * Strict sanitize (lone surrogates are read as U+FFFD, as every other layer reads
   * them, and stay U+FFFD in the result: no pre-pass, so halves never pair across
   * what strict removes; README "strict profile"): the result string, or throws the
   * rejection.
   */
  function sanitizeStrict(str, field, maxBytes) {
    if (!(typeof maxBytes === 'number' && Number.isSafeInteger(maxBytes) && maxBytes >= 0)) {
      throw new TypeError('airlock: the strict profile takes a non-negative integer maxBytes');
    }
    encode(str);
    encodeField(field);
    try {
      const room = output(Number(c.worstCaseProfile(ENUMS.PROFILE.STRICT, inLen, maxBytes)));
      const call = () =>
        c.sanitizeProfile(
          ENUMS.PROFILE.STRICT,
          inP,
          inLen,
          fieldP,
          fieldLen,
          maxBytes,
          outP,
          room,
          OUT_LEN,
          msgAddr,
          msgBuf.length,
          MSG_LEN,
          0,
        );
      const st = call();
      if (st === OK) {
        const s = outBytes().toString('utf8', 0, word(0));
        outOwn = null;
        return s;
      }
      if (st === REJECTED) throw new Error(message(call));
      throw fail(st);
    } finally {
      release();
    }
  }

  function sanitizeProse(text, options) {
    const { field, maxBytes } = options;
    if (profileOf(options) === ENUMS.PROFILE.STRICT) return sanitizeStrict(String(text), field, maxBytes);
    const str = String(text);
    encodeField(field);
    if (typeof maxBytes === 'number' && Number.isSafeInteger(maxBytes) && maxBytes >= 0) {
      return sanitize16(str, maxBytes, lastField);
    }
    // A cap that is not a non-negative integer: sanitize uncut, then cut and note
    // exactly as the reference's `truncateToBytes` + note do with that value.
    const whole = sanitize16(str, NO_CAP, lastField);
    const { text: capped, truncated, bytes } = truncateToBytes(whole, maxBytes);
    return truncated
      ? `${capped} […truncated by the reconciliation engine: ${bytes} bytes exceeded the ${maxBytes}-byte cap]`
      : capped;
  }

  function truncateToBytes(text, maxBytes) {
    const str = String(text);
    encode(str);
    try {
      const bytes = inLen;
      if (bytes <= maxBytes) return { text: str, truncated: false, bytes };
      const cap =
        typeof maxBytes === 'number' && Number.isSafeInteger(maxBytes) && maxBytes >= 0
          ? maxBytes
          : effectiveCap(maxBytes);
      const st = c.truncate(inP, inLen, cap, OUT_LEN, 0);
      if (st !== OK) throw fail(st);
      // Lone surrogates and their U+FFFD are both one UTF-16 unit: the prefix of the
      // encoded text is as long, in units, as the prefix of the original.
      const prefix = word(0);
      const units = prefix === bytes ? str.length : inBytes().toString('utf8', 0, prefix).length;
      return { text: str.slice(0, units), truncated: true, bytes };
    } finally {
      release();
    }
  }

  /**
   * The reference walks its argument with `for…of`: a string, or any iterable of
   * strings (each element one "character": its first code point decides, the whole
   * element is kept or dropped, and it is the next one's predecessor). Anything
   * else throws the TypeError `for…of` throws.
   */
  function stripIterable(text) {
    let out = '';
    let prev = '';
    for (const char of text) {
      const cp = char.codePointAt(0);
      // Written as the reference does, so an empty element (cp undefined) counts too.
      const selector = !(cp < 0xfe00 || cp > 0xfe0f);
      let drop = isDangerousInvisibleCodePoint(cp);
      if (!drop && selector) {
        // Kept only as U+FE0F after an element holding a pictographic code point.
        drop = !(cp === 0xfe0f && prev !== '' && [...prev].some((p) => !c.isStripped(0xfe0f, p.codePointAt(0))));
      }
      if (!drop) out += char;
      prev = char;
    }
    return out;
  }

  function stripDangerousInvisibles(text, options) {
    if (profileOf(options) === ENUMS.PROFILE.STRICT) {
      encode(String(text));
      try {
        const room = output(inLen);
        const st = c.stripProfile(ENUMS.PROFILE.STRICT, inP, inLen, outP, room, OUT_LEN, 0);
        if (st !== OK) throw fail(st);
        const s = outBytes().toString('utf8', 0, word(0));
        outOwn = null;
        return s;
      } finally {
        release();
      }
    }
    if (typeof text !== 'string' && !(text instanceof String)) return stripIterable(text);
    const str = String(text);
    encode(str);
    try {
      const room = output(inLen);
      const st = c.strip(inP, inLen, outP, room, OUT_LEN, 0);
      if (st !== OK) throw fail(st);
      const len = word(0);
      const s = len === inLen ? str : outBytes().toString('utf8', 0, len);
      outOwn = null;
      return len === inLen || encodedExactly(str) ? s : restoreSurrogates(str, s);
    } finally {
      release();
    }
  }

  function isDangerousInvisibleCodePoint(cp) {
    if (typeof cp === 'number' && Number.isInteger(cp)) {
      return cp >= 0 && cp <= 0x10ffff && c.isDangerousInvisible(cp);
    }
    // The reference tests single code points with `===` (only an integer number
    // matches) and ranges with `>=`/`<=`, which convert anything else to a number:
    // '8203' and 8203.5 are inside U+200B–U+200D, '173' is no U+00AD.
    const n = typeof cp === 'bigint' ? Number(cp) : Number(cp);
    return REFERENCE_RANGES.some(([lo, hi]) => n >= lo && n <= hi);
  }

  function deriveFenceToken(payload) {
    // Hashed as the UTF-8 of the string, a lone surrogate as U+FFFD, as Node's
    // createHash encodes it; a hex token never touches one.
    return fence16(String(payload));
  }

  // --- machine values ------------------------------------------------------------------

  /** Runs a check over the encoded input; `call` passes the message triple last. */
  function check(call, field, value) {
    const st = call(msgAddr, msgBuf.length, MSG_LEN, 0);
    if (st === OK) return;
    if (st === REJECTED) {
      const msg = message(() => call(msgAddr, msgBuf.length, MSG_LEN, 0));
      throw new Error(restoreMessage(msg, field, value));
    }
    throw fail(st);
  }

  function shapeOf(pattern) {
    const direct = SHAPES.get(pattern);
    if (direct !== undefined) return direct;
    if (pattern instanceof RegExp && pattern.flags === '') {
      for (const [re, shape] of SHAPES) if (re.source === pattern.source) return shape;
    }
    return 0;
  }

  function assertMachineToken(value, { field, pattern }) {
    if (typeof value !== 'string' || value === '') {
      throw rejection(field, 'must be a non-empty string', value);
    }
    const shape = shapeOf(pattern);
    if (shape === 0) {
      // Any other pattern is the caller's own RegExp: tested here, as the reference does.
      if (!pattern.test(value)) throw rejection(field, `must match ${pattern.source}`, value);
      return value;
    }
    encode(value);
    encodeField(field);
    try {
      check(
        (m, mc, ml, eo) => c.machineToken(inP, inLen, fieldP, fieldLen, shape, m, mc, ml, eo),
        lastField,
        value,
      );
    } finally {
      release();
    }
    return value;
  }

  function assertNoControlChars(value, field, options) {
    if (typeof value !== 'string') throw rejection(field, 'must be a string', value);
    const profile = profileOf(options);
    encode(value);
    encodeField(field);
    try {
      if (profile === ENUMS.PROFILE.STRICT) {
        check((m, mc, ml, eo) => c.noControlProfile(profile, inP, inLen, fieldP, fieldLen, m, mc, ml, eo), lastField, value);
        return value;
      }
      check((m, mc, ml, eo) => c.noControl(inP, inLen, fieldP, fieldLen, m, mc, ml, eo), lastField, value);
    } finally {
      release();
    }
    return value;
  }

  function assertSafeDescription(value, options) {
    if (typeof value !== 'string') throw rejection('description', 'must be a string', value);
    const profile = profileOf(options);
    encode(value);
    try {
      if (profile === ENUMS.PROFILE.STRICT) {
        check((m, mc, ml, eo) => c.safeDescriptionProfile(profile, inP, inLen, m, mc, ml, eo), 'description', value);
        return value;
      }
      check((m, mc, ml, eo) => c.safeDescription(inP, inLen, m, mc, ml, eo), 'description', value);
    } finally {
      release();
    }
    return value;
  }

  function assertSafeGlob(glob, options) {
    if (typeof glob !== 'string' || glob === '') {
      throw rejection('globs[]', 'must be a non-empty string', glob);
    }
    const profile = profileOf(options);
    encode(glob);
    try {
      if (profile === ENUMS.PROFILE.STRICT) {
        check((m, mc, ml, eo) => c.safeGlobProfile(profile, inP, inLen, m, mc, ml, eo), 'globs[]', glob);
        return glob;
      }
      check((m, mc, ml, eo) => c.safeGlob(inP, inLen, m, mc, ml, eo), 'globs[]', glob);
    } finally {
      release();
    }
    return glob;
  }

  function assertNoWrapperForgery(text, field) {
    encode(String(text));
    encodeField(field);
    try {
      // The preview is the literal, never the text: only the field can need restoring.
      check((m, mc, ml, eo) => c.noForgery(inP, inLen, fieldP, fieldLen, m, mc, ml, eo), lastField, undefined);
    } finally {
      release();
    }
  }

  // --- frontmatter ---------------------------------------------------------------------

  /** The parse error message, with a malformed document's own line put back. */
  function restoreParseError(msg, doc) {
    if (doc.isWellFormed() || !msg.startsWith(PARSE_ERROR_PREFIX)) return msg;
    let line;
    try {
      line = JSON.parse(msg.slice(PARSE_ERROR_PREFIX.length));
    } catch {
      return msg;
    }
    // The quoted line is a whole line of the document, right-trimmed: it starts a
    // line and only white space follows it up to the line's end.
    // The search starts at the opening `---`, the first line starting so (no
    // preamble line does), so a header comment never matches.
    const wf = doc.toWellFormed();
    const open = wf.startsWith('---') ? 0 : wf.indexOf('\n---') + 1;
    for (let at = wf.indexOf(line, open); at !== -1; at = wf.indexOf(line, at + 1)) {
      const end = at + line.length;
      const lineEnd = wf.indexOf('\n', end);
      const rest = wf.slice(end, lineEnd === -1 ? wf.length : lineEnd);
      if ((at === 0 || wf[at - 1] === '\n') && /^\s*$/.test(rest)) {
        return PARSE_ERROR_PREFIX + JSON.stringify(doc.slice(at, end));
      }
    }
    return msg;
  }

  // airlock_frontmatter_read's outputs: the summary and room for every kept key
  // (there are only so many keys) and, growing when a document has more, globs.
  const summaryBuf = ownBuffer(SUMMARY.size);
  const summaryAddr = Number(koffi.address(summaryBuf));
  const META_MAX = Object.keys(ENUMS.META_KEY).length;
  const metaBuf = ownBuffer(META_MAX * ENTRY.size);
  const metaAddr = Number(koffi.address(metaBuf));
  let globCap = 64;
  let globBuf = ownBuffer(globCap * SPAN.size);
  let globAddr = Number(koffi.address(globBuf));
  const size = (buf, at) => Number(buf.readBigUInt64LE(at));

  /**
   * The reference reads a document with `contents.split(…)`: anything else without a
   * `split` method throws its TypeError, with the same words, before any parsing.
   */
  function documentText(contents) {
    if (typeof contents === 'string') return contents;
    contents.split(/\r?\n/);
    return String(contents);
  }

  function parseGlobsFrontmatter(contents) {
    const doc = documentText(contents);
    encode(doc);
    try {
      const docP = inP;
      const docLen = inLen;
      const read = () =>
        c.fmRead(docP, docLen, summaryAddr, globAddr, globCap, metaAddr, META_MAX, msgAddr, msgBuf.length, MSG_LEN, 0);
      let st = read();
      if (st === BUFFER_TOO_SMALL) {
        const need = size(summaryBuf, SUMMARY.glob_count);
        if (need > globCap) {
          globCap = need;
          globBuf = ownBuffer(globCap * SPAN.size);
          globAddr = Number(koffi.address(globBuf));
        }
        st = read();
      }
      if (st === PARSE_ERROR) throw new Error(restoreParseError(message(read), doc));
      if (st !== OK) throw fail(st);
      const hasGlobs = summaryBuf[SUMMARY.has_globs] !== 0;
      const globCount = size(summaryBuf, SUMMARY.glob_count);
      const metaCount = size(summaryBuf, SUMMARY.meta_count);
      const bytes = inBytes();
      const wellFormed = doc.isWellFormed();
      // A span of the document; for a malformed one, the same units of the original.
      const span = (start, len) => {
        if (wellFormed) return bytes.toString('utf8', start, start + len);
        const from = bytes.toString('utf8', 0, start).length;
        return doc.slice(from, from + bytes.toString('utf8', start, start + len).length);
      };
      let globs = null;
      if (hasGlobs) {
        globs = [];
        for (let i = 0, at = 0; i < globCount; i++, at += SPAN.size) {
          globs.push(span(size(globBuf, at + SPAN.start), size(globBuf, at + SPAN.len)));
        }
      }
      const meta = {};
      for (let i = 0, at = 0; i < metaCount; i++, at += ENTRY.size) {
        const key = metaBuf.readUInt32LE(at + ENTRY.key);
        const kind = metaBuf.readUInt32LE(at + ENTRY.kind);
        let value;
        if (kind === META_KIND.STRING) value = span(size(metaBuf, at + ENTRY.str_start), size(metaBuf, at + ENTRY.str_len));
        else if (kind === META_KIND.BOOL) value = metaBuf[at + ENTRY.bool_value] !== 0;
        else if (kind === META_KIND.NUMBER) value = metaBuf.readDoubleLE(at + ENTRY.number_value);
        else throw fail(INTERNAL);
        meta[keyName(key)] = value;
      }
      return { globs, meta };
    } finally {
      release();
    }
  }

  /** The `airlock_gate` of `options.gate`: 3.20.0 unless the caller names another release. */
  function gateOf(options) {
    if (options === undefined || options === null || options.gate === undefined) return ENUMS.GATE.V3_20;
    const gate = GATES.get(String(options.gate));
    if (gate === undefined) {
      throw new RangeError(`airlock: unknown writer gate ${JSON.stringify(String(options.gate))} (known: 3.20, 3.21)`);
    }
    return gate;
  }

  function frontmatterRefusalReason(content, options) {
    const gate = gateOf(options);
    let doc;
    try {
      doc = documentText(content);
    } catch (err) {
      // The reference's gate catches its parser's throw and reports it.
      const msg = err && err.message ? err.message : String(err);
      return `frontmatter does not parse (${msg}) — rule-loader.mjs treats a parse error as ALWAYS-ON with empty meta, so this file would load in every context and pass every gate`;
    }
    encode(doc);
    try {
      const call = () => c.fmRefusalGate(inP, inLen, gate, msgAddr, msgBuf.length, MSG_LEN, 0);
      const st = call();
      if (st === OK) return null;
      if (st !== REJECTED) throw fail(st);
      const reason = message(call);
      if (doc.isWellFormed() || !reason.startsWith('frontmatter does not parse (')) return reason;
      // Only a parse error quotes the document: put a malformed line back.
      const parse = () => c.fmParse(inP, inLen, summaryAddr, msgAddr, msgBuf.length, MSG_LEN, 0);
      if (parse() !== PARSE_ERROR) return reason;
      const built = message(parse);
      return reason.replace(built, () => restoreParseError(built, doc));
    } finally {
      release();
    }
  }

  return Object.freeze({
    libraryPath,
    version: c.version(),
    unicodeVersion: c.unicodeVersion(),
    envelope: Object.freeze({ begin: c.envelopeBegin(), end: c.envelopeEnd() }),
    sanitizeProse,
    truncateToBytes,
    stripDangerousInvisibles,
    isDangerousInvisibleCodePoint,
    deriveFenceToken,
    assertMachineToken,
    assertNoControlChars,
    assertSafeDescription,
    assertSafeGlob,
    assertNoWrapperForgery,
    parseGlobsFrontmatter,
    frontmatterRefusalReason,
  });
}
