// The binding proper: loads libairlock through koffi and wraps each C entry point in a
// function that behaves like the reference module's export of the same name.
//
// Strings cross the boundary as UTF-8 in scratch Buffers owned by one instance. The
// calls are synchronous and never call back into JavaScript, so an instance can never
// be re-entered while a call uses its scratch; each worker_thread imports its own copy
// of this module (and so owns its own instances and scratch), so nothing here is
// shared between threads. libairlock itself has no global state.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import koffi from 'koffi';

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

// Status codes of include/airlock.h.
const OK = 0;
const REJECTED = 1;
const BUFFER_TOO_SMALL = 3;
const PARSE_ERROR = 7;

// Shapes of include/airlock.h, keyed by the exported RegExp objects.
const SHAPES = new Map([
  [HOST_CLASS_RE, 1],
  [LEARNING_KEY_RE, 2],
  [EXPIRES_AT_RE, 3],
  [PROVENANCE_TOKEN_RE, 4],
]);

// Scratch buffers start at this size and grow, up to SCRATCH_MAX, to fit the
// largest input seen; a larger input gets a Buffer of its own for that call only.
const SCRATCH_INITIAL = 64 * 1024;
const SCRATCH_MAX = 4 * 1024 * 1024;

// Larger than any input length; used as "no cap" when the JS-side cut applies.
const NO_CAP = Number.MAX_SAFE_INTEGER;

// The truncation note is at most this long (two decimal numbers of ≤ 16 digits).
const NOTE_MAX = 160;

const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');

const REJECTION_PREFIX = 'reconcile-sanitize: rejecting record — ';
const PARSE_ERROR_PREFIX = 'Malformed frontmatter line: ';

/** Where the library is looked for, in order; the first source given is the only one. */
function candidates(options) {
  if (options.library !== undefined && options.library !== null) {
    return { paths: [path.resolve(String(options.library))], source: 'the library option' };
  }
  const env = process.env.AIRLOCK_LIB;
  if (env !== undefined && env !== '') {
    return { paths: [path.resolve(env)], source: 'AIRLOCK_LIB' };
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
        `Build it from the repository root with \`${BUILD_COMMAND}\`, ` +
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
  const f = (sig) => lib.func(sig);
  return {
    version: f('const char *airlock_version(void)'),
    unicodeVersion: f('const char *airlock_unicode_version(void)'),
    envelopeBegin: f('const char *airlock_envelope_begin(void)'),
    envelopeEnd: f('const char *airlock_envelope_end(void)'),
    statusName: f('const char *airlock_status_name(uint32_t status)'),
    metaKeyName: f('const char *airlock_meta_key_name(uint32_t key)'),
    isDangerousInvisible: f('bool airlock_is_dangerous_invisible(uint32_t cp)'),
    strip: f(
      'uint32_t airlock_strip(const void *text, size_t text_len, void *out, size_t out_cap, void *out_len, void *err_offset)',
    ),
    truncate: f(
      'uint32_t airlock_truncate(const void *text, size_t text_len, size_t max_bytes, void *out_len, void *err_offset)',
    ),
    sanitize: f(
      'uint32_t airlock_sanitize_prose(const void *text, size_t text_len, const void *field, size_t field_len, size_t max_bytes, void *out, size_t out_cap, void *out_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    fence: f(
      'uint32_t airlock_fence_token(const void *payload, size_t payload_len, void *out, size_t out_cap, void *out_len, void *err_offset)',
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
    noForgery: f(
      'uint32_t airlock_check_no_forgery(const void *text, size_t text_len, const void *field, size_t field_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    fmParse: f(
      'uint32_t airlock_frontmatter_parse(const void *doc, size_t doc_len, void *summary, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
    fmGlob: f(
      'uint32_t airlock_frontmatter_glob(const void *doc, size_t doc_len, size_t index, void *start, void *len, void *err_offset)',
    ),
    fmMeta: f(
      'uint32_t airlock_frontmatter_meta(const void *doc, size_t doc_len, size_t index, void *entry, void *err_offset)',
    ),
    fmRefusal: f(
      'uint32_t airlock_frontmatter_refusal(const void *doc, size_t doc_len, void *msg, size_t msg_cap, void *msg_len, void *err_offset)',
    ),
  };
}

/** A Buffer that is not a slice of Node's shared pool, so its address is its own. */
function ownBuffer(size) {
  return Buffer.allocUnsafeSlow(size);
}

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
  // [0] out_len / start, [1] msg_len / len, [2] err_offset, [3..] struct outputs.
  const words = ownBuffer(64);
  const wordsAddr = Number(koffi.address(words));
  const OUT_LEN = wordsAddr;
  const MSG_LEN = wordsAddr + 8;
  const ERR_OFFSET = wordsAddr + 16;
  const STRUCT = wordsAddr + 24; // 40 bytes: airlock_meta_entry or the summary
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

  // --- prose ---------------------------------------------------------------------------

  /** Runs airlock_sanitize_prose on the encoded input; the result string, or throws. */
  function sanitizeEncoded(cap, field, original, exact) {
    let room = output(Math.min(inLen + Math.floor(inLen / 21) * 5, cap + NOTE_MAX));
    let st = c.sanitize(inP, inLen, fieldP, fieldLen, cap, outP, room, OUT_LEN, msgAddr, msgBuf.length, MSG_LEN, 0);
    if (st === BUFFER_TOO_SMALL) {
      room = output(word(0));
      st = c.sanitize(inP, inLen, fieldP, fieldLen, cap, outP, room, OUT_LEN, msgAddr, msgBuf.length, MSG_LEN, 0);
    }
    if (st === OK) {
      const len = word(0);
      const out = outBytes();
      outOwn = null;
      // Clean prose comes back as it went in: no decoding needed.
      if (exact && len === inLen && out.compare(inBytes(), 0, inLen, 0, len) === 0) return original;
      return out.toString('utf8', 0, len);
    }
    if (st === REJECTED) {
      const msg = message(() =>
        c.sanitize(inP, inLen, fieldP, fieldLen, cap, outP, room, OUT_LEN, msgAddr, msgBuf.length, MSG_LEN, 0),
      );
      throw new Error(restoreMessage(msg, field, original));
    }
    throw fail(st);
  }

  function sanitizeProse(text, { field, maxBytes }) {
    const str = String(text);
    encode(str);
    encodeField(field);
    try {
      const wellFormed = encodedExactly(str);
      if (typeof maxBytes === 'number' && Number.isSafeInteger(maxBytes) && maxBytes >= 0) {
        const s = sanitizeEncoded(maxBytes, lastField, str, wellFormed);
        return wellFormed ? s : restoreSurrogates(str, s);
      }
      // A cap that is not a non-negative integer: sanitize uncut, then cut and note
      // exactly as the reference's `truncateToBytes` + note do with that value.
      const framed = sanitizeEncoded(NO_CAP, lastField, str, wellFormed);
      const whole = wellFormed ? framed : restoreSurrogates(str, framed);
      const { text: capped, truncated, bytes } = truncateToBytes(whole, maxBytes);
      return truncated
        ? `${capped} […truncated by the reconciliation engine: ${bytes} bytes exceeded the ${maxBytes}-byte cap]`
        : capped;
    } finally {
      release();
    }
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

  function stripDangerousInvisibles(text) {
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
    if (typeof cp !== 'number' || !Number.isInteger(cp) || cp < 0 || cp > 0x10ffff) return false;
    return c.isDangerousInvisible(cp);
  }

  function deriveFenceToken(payload) {
    // Node hashes a lone surrogate as U+FFFD too, and a hex token never touches one.
    encode(String(payload));
    try {
      const st = c.fence(inP, inLen, fieldAddr, fieldBuf.length, OUT_LEN, 0);
      if (st !== OK) throw fail(st);
      lastField = null; // the token overwrote the field scratch
      return fieldBuf.toString('latin1', 0, word(0));
    } finally {
      release();
    }
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

  function assertNoControlChars(value, field) {
    if (typeof value !== 'string') throw rejection(field, 'must be a string', value);
    encode(value);
    encodeField(field);
    try {
      check((m, mc, ml, eo) => c.noControl(inP, inLen, fieldP, fieldLen, m, mc, ml, eo), lastField, value);
    } finally {
      release();
    }
    return value;
  }

  function assertSafeDescription(value) {
    if (typeof value !== 'string') throw rejection('description', 'must be a string', value);
    encode(value);
    try {
      check((m, mc, ml, eo) => c.safeDescription(inP, inLen, m, mc, ml, eo), 'description', value);
    } finally {
      release();
    }
    return value;
  }

  function assertSafeGlob(glob) {
    if (typeof glob !== 'string' || glob === '') {
      throw rejection('globs[]', 'must be a non-empty string', glob);
    }
    encode(glob);
    try {
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
    const wf = doc.toWellFormed();
    for (let at = wf.indexOf(line); at !== -1; at = wf.indexOf(line, at + 1)) {
      if (at === 0 || wf[at - 1] === '\n') {
        return PARSE_ERROR_PREFIX + JSON.stringify(doc.slice(at, at + line.length));
      }
    }
    return msg;
  }

  function parseGlobsFrontmatter(document) {
    const doc = String(document);
    encode(doc);
    try {
      const docP = inP;
      const docLen = inLen;
      const parse = () => c.fmParse(docP, docLen, STRUCT, msgAddr, msgBuf.length, MSG_LEN, 0);
      const st = parse();
      if (st === PARSE_ERROR) throw new Error(restoreParseError(message(parse), doc));
      if (st !== OK) throw fail(st);
      const hasGlobs = words[STRUCT - wordsAddr] !== 0;
      const globCount = word(4);
      const metaCount = word(5);
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
        for (let i = 0; i < globCount; i++) {
          const g = c.fmGlob(docP, docLen, i, OUT_LEN, MSG_LEN, 0);
          if (g !== OK) throw fail(g);
          globs.push(span(word(0), word(1)));
        }
      }
      const meta = {};
      for (let i = 0; i < metaCount; i++) {
        const m = c.fmMeta(docP, docLen, i, STRUCT, 0);
        if (m !== OK) throw fail(m);
        // airlock_meta_entry: u32 key, u32 kind, size_t start, size_t len, bool, double.
        const key = u32[6];
        const kind = u32[7];
        let value;
        if (kind === 1) value = span(word(4), word(5));
        else if (kind === 2) value = words[48] !== 0;
        else if (kind === 3) value = words.readDoubleLE(56);
        else throw fail(10);
        meta[keyName(key)] = value;
      }
      return { globs, meta };
    } finally {
      release();
    }
  }

  function frontmatterRefusalReason(document) {
    const doc = String(document);
    encode(doc);
    try {
      const call = () => c.fmRefusal(inP, inLen, msgAddr, msgBuf.length, MSG_LEN, 0);
      const st = call();
      if (st === OK) return null;
      if (st !== REJECTED) throw fail(st);
      const reason = message(call);
      if (doc.isWellFormed() || !reason.startsWith('frontmatter does not parse (')) return reason;
      // Only a parse error quotes the document: put a malformed line back.
      const parse = () => c.fmParse(inP, inLen, STRUCT, msgAddr, msgBuf.length, MSG_LEN, 0);
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
