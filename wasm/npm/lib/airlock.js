// The binding proper: wraps the WebAssembly module's exports (wasm/src/abi.rs) in
// functions that behave like the reference module's exports of the same names, with
// the names, arguments, results and messages of the Node binding (ffi/node).
//
// Text crosses as UTF-8 (TextEncoder#encodeInto straight into linear memory, and
// TextDecoder back). A JavaScript string may hold lone surrogates, which have no
// UTF-8 form: the encoder writes U+FFFD for each. U+FFFD behaves exactly as a lone
// surrogate does in every rule (no rule matches it, it counts three bytes, nothing
// drops, moves or inserts it), so the k-th U+FFFD of a result is put back as the
// k-th U+FFFD-or-lone-surrogate of the input. The one thing U+FFFD cannot mimic is
// two halves pairing once what lay between them is stripped; for the reference's
// sanitize, a malformed text first goes through the reference's steps 1-2 here
// (they are idempotent, so core's own steps 1-2 then change nothing).
//
// Nothing here uses a platform API but TextEncoder, TextDecoder and WebAssembly:
// the same file runs in browsers, Node, Deno and workerd. Calls are synchronous and
// never re-enter; each instance owns its module instance and its memory.

import {
  EXPIRES_AT_RE,
  HOST_CLASS_RE,
  LEARNING_KEY_RE,
  PROVENANCE_TOKEN_RE,
} from './constants.js';

// Statuses of wasm/src/ops.rs.
const OK = 0;
const REJECTED = 1;
const BUFFER_TOO_SMALL = 2;
const PARSE_ERROR = 3;

const PROFILES = new Map([
  ['reference', 0],
  ['strict', 1],
]);
const REFERENCE = 0;
const STRICT = 1;

// The checks of aw_check.
const CHECK = { MACHINE_TOKEN: 0, NO_CONTROL: 1, SAFE_DESCRIPTION: 2, SAFE_GLOB: 3, NO_FORGERY: 4 };

// Shapes of aw_check's MACHINE_TOKEN, keyed by the exported RegExp objects.
const SHAPES = new Map([
  [HOST_CLASS_RE, 1],
  [LEARNING_KEY_RE, 2],
  [EXPIRES_AT_RE, 3],
  [PROVENANCE_TOKEN_RE, 4],
]);

const GATES = new Map([
  ['3.20', 0],
  ['3.20.0', 0],
  ['3.21', 1],
  ['3.21.0', 1],
]);

// The most a wasm32 length can say; a cap above it cuts nothing any text can reach.
const U32_MAX = 0xffff_ffff;
// Larger than any input length; "no cap" when the JavaScript-side cut applies.
const NO_CAP = U32_MAX;

const MSG_ROOM = 4096;
const FENCE_ROOM = 64;

const REJECTION_PREFIX = 'reconcile-sanitize: rejecting record — ';
const PARSE_ERROR_PREFIX = 'Malformed frontmatter line: ';

// C0 and C1 controls but TAB and LF: the reference's step 2 (`\p{Cc}` less those two).
const CONTROLS_BUT_TAB_LF = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * The ranges the reference's `isDangerousInvisibleCodePoint` compares with `>=` and
 * `<=`; only a non-integer or non-number argument is judged by these alone.
 */
const REFERENCE_RANGES = Object.freeze([
  [0x200b, 0x200d],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
  [0x2061, 0x2064],
]);

/** What `scanText` calls each kind of finding (wasm/src/ops.rs `findings`). */
const FINDING_KINDS = new Map([
  [0, 'invisible'],
  [1, 'tag-run'],
  [2, 'orphan-selector'],
  [3, 'control'],
  [4, 'unpaired-bidi'],
  [16, 'strict-dropped'],
  [17, 'escape-sequence'],
  [18, 'strict-control'],
  [19, 'forgery-literal'],
  [20, 'envelope-marker'],
  [21, 'special-token'],
  [22, 'hidden-comment'],
]);

function profileOf(options) {
  const name = options?.profile ?? 'reference';
  const id = PROFILES.get(name);
  if (id === undefined) {
    throw new TypeError(`airlock: unknown profile ${JSON.stringify(String(name))} (reference or strict)`);
  }
  return id;
}

/** JSON preview of a rejected value, exactly as the reference builds it. */
function shown(value) {
  return JSON.stringify(typeof value === 'string' ? value.slice(0, 120) : value);
}

/** The reference's rejection, for the cases decided in JavaScript. */
function rejection(field, why, value) {
  return new Error(`${REJECTION_PREFIX}${field} ${why} (got ${shown(value)})`);
}

/** Puts the original's lone surrogates back for the U+FFFD the encoder wrote. */
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
  const m = Number(maxBytes);
  if (Number.isNaN(m)) return NO_CAP; // every comparison is false: the loop never breaks
  if (m < 0) return 0;
  return Math.min(Math.floor(m), NO_CAP);
}

const isCap = (m) => typeof m === 'number' && Number.isSafeInteger(m) && m >= 0;

/**
 * The reference reads a document with `contents.split(…)`: anything else without a
 * `split` method throws its TypeError, with the same words, before any parsing.
 */
function documentText(contents) {
  if (typeof contents === 'string') return contents;
  contents.split(/\r?\n/);
  return String(contents);
}

/** The parse error message, with a malformed document's own line put back. */
function restoreParseError(msg, doc) {
  if (doc.isWellFormed() || !msg.startsWith(PARSE_ERROR_PREFIX)) return msg;
  let line;
  try {
    line = JSON.parse(msg.slice(PARSE_ERROR_PREFIX.length));
  } catch {
    return msg;
  }
  // The quoted line is a whole line of the document, right-trimmed, found from the
  // opening `---` on (no preamble line starts so, so a header comment never matches).
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

/** A WebAssembly.Instance of the airlock module, from what the caller has. */
function instanceOf(module) {
  if (module instanceof WebAssembly.Instance) return module;
  if (module instanceof WebAssembly.Module) return new WebAssembly.Instance(module, {});
  if (module instanceof ArrayBuffer || ArrayBuffer.isView(module)) {
    return new WebAssembly.Instance(new WebAssembly.Module(module), {});
  }
  throw new TypeError('airlock: createAirlock needs { module }: a WebAssembly.Module, Instance or the bytes of airlock.wasm');
}

/**
 * Creates an instance over one instantiation of the module.
 *
 * @param {{ module: WebAssembly.Module | WebAssembly.Instance | BufferSource }} options
 */
export function createAirlock(options) {
  const wasm = instanceOf(options?.module).exports;
  for (const name of ['memory', 'aw_reserve', 'aw_sanitize', 'aw_check', 'aw_findings']) {
    if (!(name in wasm)) throw new TypeError(`airlock: the module has no export ${name}: not airlock.wasm`);
  }
  const memory = wasm.memory;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  const resultAt = wasm.aw_result() >>> 0;
  const words = () => new Uint32Array(memory.buffer, resultAt, 2);
  const outLen = () => words()[0];
  const msgLen = () => words()[1];

  const heapBase = wasm.aw_reserve(0) >>> 0;
  const fail = (status) =>
    new Error(`airlock: unexpected status ${status} from the WebAssembly module (a bug: please report it)`);

  /** The arena, holding at least `bytes`: its start (the memory grows as needed). */
  function reserve(bytes) {
    if (!(bytes <= U32_MAX)) {
      throw new RangeError(`airlock: a call needing ${bytes} bytes exceeds the WebAssembly module's 4 GiB memory`);
    }
    const base = wasm.aw_reserve(bytes) >>> 0;
    if (base === 0) throw new RangeError(`airlock: the WebAssembly memory cannot grow to hold ${bytes} bytes`);
    return base;
  }
  const align = (n) => (n + 7) & ~7;
  const bytesAt = (at, len) => new Uint8Array(memory.buffer, at, len);
  const decode = (at, len) => (len === 0 ? '' : decoder.decode(bytesAt(at, len)));

  /**
   * Lays `strings` out from the arena's start (each in room for its worst-case
   * UTF-8), then `extra` more bytes: the regions, `[at, len]` each, and where the
   * free room starts.
   */
  function layout(strings, extra = 0) {
    let need = 0;
    for (const s of strings) need += align(s.length * 3);
    const base = reserve(need + extra);
    const regions = [];
    let at = base;
    for (const s of strings) {
      const room = s.length * 3;
      const len = room === 0 ? 0 : encoder.encodeInto(s, bytesAt(at, room)).written;
      regions.push([at, len]);
      at += align(room);
    }
    return { regions, free: at, base };
  }

  /** Reads the message of a REJECTED/PARSE_ERROR call, re-running it with more room if need be. */
  function message(call, msgAt, room) {
    const len = msgLen();
    if (len <= room) return decode(msgAt, len);
    // The message did not fit: grow the arena and ask again (the inputs stay put).
    reserve(msgAt - heapBase + len);
    call(len);
    return decode(msgAt, msgLen());
  }

  // --- prose ---------------------------------------------------------------------------

  /** Core's sanitize of `str` (well-formed, or already through steps 1-2). */
  function sanitizeCore(profile, str, field, cap, original) {
    const { regions, free } = layout([str, field]);
    const [[t, tl], [f, fl]] = regions;
    const outRoom = wasm.aw_worst_case_len(profile, tl, cap) >>> 0;
    const outAt = free;
    const msgAt = align(outAt + outRoom);
    reserve(msgAt + MSG_ROOM - heapBase);
    const call = (room) => wasm.aw_sanitize(profile, t, tl, f, fl, cap, outAt, outRoom, msgAt, room);
    const st = call(MSG_ROOM);
    if (st === OK) return decode(outAt, outLen());
    if (st === REJECTED) throw new Error(restoreMessage(message(call, msgAt, MSG_ROOM), field, original));
    throw fail(st);
  }

  /** The reference's steps 1-2 on a string with lone surrogates, pairing halves as it does. */
  function referenceSteps12(str) {
    return stripIterable(str).replace(CONTROLS_BUT_TAB_LF, '');
  }

  function sanitizeReference(str, field, cap) {
    if (str.isWellFormed()) return sanitizeCore(REFERENCE, str, field, cap, str);
    const pre = referenceSteps12(str);
    return restoreSurrogates(pre, sanitizeCore(REFERENCE, pre, field, cap, str));
  }

  function sanitizeProse(text, options) {
    const { field, maxBytes } = options;
    const profile = profileOf(options);
    const f = typeof field === 'string' ? field : `${field}`;
    if (profile === STRICT) {
      if (!isCap(maxBytes)) {
        throw new TypeError('airlock: the strict profile takes a non-negative integer maxBytes');
      }
      // Strict reads lone surrogates as U+FFFD, as every other layer does, and keeps
      // them so (no pre-pass: halves never pair across what strict removes).
      return sanitizeCore(STRICT, String(text), f, Math.min(maxBytes, U32_MAX), String(text));
    }
    const str = String(text);
    if (isCap(maxBytes)) return sanitizeReference(str, f, Math.min(maxBytes, U32_MAX));
    // A cap that is not a non-negative integer: sanitize uncut, then cut and note
    // exactly as the reference's `truncateToBytes` + note do with that value.
    const whole = sanitizeReference(str, f, NO_CAP);
    const { text: capped, truncated, bytes } = truncateToBytes(whole, maxBytes);
    return truncated
      ? `${capped} […truncated by the reconciliation engine: ${bytes} bytes exceeded the ${maxBytes}-byte cap]`
      : capped;
  }

  function truncateToBytes(text, maxBytes) {
    const str = String(text);
    const {
      regions: [[t, bytes]],
    } = layout([str]);
    if (bytes <= maxBytes) return { text: str, truncated: false, bytes };
    const cap = isCap(maxBytes) ? Math.min(maxBytes, U32_MAX) : effectiveCap(maxBytes);
    const st = wasm.aw_truncate(t, bytes, cap);
    if (st !== OK) throw fail(st);
    // A lone surrogate and its U+FFFD are both one UTF-16 unit: the prefix of the
    // encoded text is as long, in units, as the prefix of the original.
    const prefix = outLen();
    const units = prefix === bytes ? str.length : decode(t, prefix).length;
    return { text: str.slice(0, units), truncated: true, bytes };
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
        drop = !(
          cp === 0xfe0f &&
          prev !== '' &&
          [...prev].some((p) => wasm.aw_is_stripped(0xfe0f, p.codePointAt(0)) === 0)
        );
      }
      if (!drop) out += char;
      prev = char;
    }
    return out;
  }

  /** Core's strip of `str`: the result's bytes decoded, or `null` when nothing was dropped. */
  function stripCore(profile, str) {
    const {
      regions: [[t, tl]],
      free,
    } = layout([str], str.length * 3 + 8);
    const st = wasm.aw_strip(profile, t, tl, free, tl);
    if (st !== OK) throw fail(st);
    const len = outLen();
    return len === tl ? null : decode(free, len);
  }

  function stripDangerousInvisibles(text, options) {
    const profile = profileOf(options);
    if (profile === STRICT) {
      // Strict gives a lone surrogate as U+FFFD, as every other layer does.
      const str = String(text);
      return stripCore(STRICT, str) ?? str.toWellFormed();
    }
    if (typeof text !== 'string' && !(text instanceof String)) return stripIterable(text);
    const str = String(text);
    const out = stripCore(REFERENCE, str);
    if (out === null) return str;
    return str.isWellFormed() ? out : restoreSurrogates(str, out);
  }

  function isDangerousInvisibleCodePoint(cp) {
    if (typeof cp === 'number' && Number.isInteger(cp)) {
      return cp >= 0 && cp <= 0x10ffff && wasm.aw_is_dangerous_invisible(cp) !== 0;
    }
    // The reference tests single code points with `===` (only an integer number
    // matches) and ranges with `>=`/`<=`, which convert anything else to a number.
    const n = typeof cp === 'bigint' ? Number(cp) : Number(cp);
    return REFERENCE_RANGES.some(([lo, hi]) => n >= lo && n <= hi);
  }

  function deriveFenceToken(payload) {
    // Hashed as the UTF-8 of the string, a lone surrogate as U+FFFD (as Node's
    // createHash encodes it); a hex token never touches one.
    const {
      regions: [[t, tl]],
      free,
    } = layout([String(payload)], FENCE_ROOM);
    const st = wasm.aw_fence(t, tl, free, FENCE_ROOM);
    if (st !== OK) throw fail(st);
    return decode(free, outLen());
  }

  // --- machine values ------------------------------------------------------------------

  /** Runs check `which` on `value`; throws the reference's rejection. */
  function check(which, profile, arg, value, field, preview) {
    const { regions, free } = layout([value, field], MSG_ROOM);
    const [[v, vl], [f, fl]] = regions;
    const call = (room) => wasm.aw_check(which, profile, arg, v, vl, f, fl, free, room);
    const st = call(MSG_ROOM);
    if (st === OK) return;
    if (st === REJECTED) throw new Error(restoreMessage(message(call, free, MSG_ROOM), field, preview));
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

  const fieldName = (field) => (typeof field === 'string' ? field : `${field}`);

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
    check(CHECK.MACHINE_TOKEN, REFERENCE, shape, value, fieldName(field), value);
    return value;
  }

  function assertNoControlChars(value, field, options) {
    if (typeof value !== 'string') throw rejection(field, 'must be a string', value);
    check(CHECK.NO_CONTROL, profileOf(options), 0, value, fieldName(field), value);
    return value;
  }

  function assertSafeDescription(value, options) {
    if (typeof value !== 'string') throw rejection('description', 'must be a string', value);
    check(CHECK.SAFE_DESCRIPTION, profileOf(options), 0, value, 'description', value);
    return value;
  }

  function assertSafeGlob(glob, options) {
    if (typeof glob !== 'string' || glob === '') {
      throw rejection('globs[]', 'must be a non-empty string', glob);
    }
    check(CHECK.SAFE_GLOB, profileOf(options), 0, glob, 'globs[]', glob);
    return glob;
  }

  function assertNoWrapperForgery(text, field) {
    // The preview is the literal, never the text: only the field can need restoring.
    check(CHECK.NO_FORGERY, REFERENCE, 0, String(text), fieldName(field), undefined);
  }

  // --- frontmatter ---------------------------------------------------------------------

  const keyNames = new Map();
  const keyName = (key) => {
    let name = keyNames.get(key);
    if (name === undefined) {
      name = info(16 + key);
      keyNames.set(key, name);
    }
    return name;
  };

  function info(which) {
    const at = wasm.aw_info(which) >>> 0;
    return decode(at, outLen());
  }

  /** aw_frontmatter on the encoded `doc`: the status, the words and the message reader. */
  function readFrontmatter(doc) {
    let room = 256;
    for (;;) {
      const { regions, free } = layout([doc], room + MSG_ROOM);
      const [[d, dl]] = regions;
      const msgAt = free + room;
      const call = (mroom) => wasm.aw_frontmatter(d, dl, free, room, msgAt, mroom);
      const st = call(MSG_ROOM);
      if (st === BUFFER_TOO_SMALL) {
        room = align(outLen());
        continue;
      }
      return { st, d, dl, free, read: () => message(call, msgAt, MSG_ROOM) };
    }
  }

  function parseGlobsFrontmatter(contents) {
    const doc = documentText(contents);
    const { st, d, free, read } = readFrontmatter(doc);
    if (st === PARSE_ERROR) throw new Error(restoreParseError(read(), doc));
    if (st !== OK) throw fail(st);
    const w = new Uint32Array(memory.buffer, free, outLen() / 4).slice();
    const wellFormed = doc.isWellFormed();
    // A span of the document; for a malformed one, the same units of the original.
    const span = (start, len) => {
      if (wellFormed) return decode(d + start, len);
      const from = decode(d, start).length;
      return doc.slice(from, from + decode(d + start, len).length);
    };
    const [hasGlobs, globCount, metaCount] = w;
    let at = 3;
    let globs = null;
    if (hasGlobs) {
      globs = [];
      for (let i = 0; i < globCount; i++, at += 2) globs.push(span(w[at], w[at + 1]));
    }
    const meta = {};
    const f64 = new DataView(new ArrayBuffer(8));
    for (let i = 0; i < metaCount; i++, at += 4) {
      const [key, kind, a, b] = [w[at], w[at + 1], w[at + 2], w[at + 3]];
      let value;
      if (kind === 0) value = span(a, b);
      else if (kind === 1) value = a !== 0;
      else if (kind === 2) {
        f64.setUint32(0, a, true);
        f64.setUint32(4, b, true);
        value = f64.getFloat64(0, true);
      } else throw fail(kind);
      meta[keyName(key)] = value;
    }
    return { globs, meta };
  }

  function gateOf(options) {
    if (options === undefined || options === null || options.gate === undefined) return 0;
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
    const { regions, free } = layout([doc], MSG_ROOM);
    const [[d, dl]] = regions;
    const call = (room) => wasm.aw_refusal(d, dl, gate, free, room);
    const st = call(MSG_ROOM);
    if (st === OK) return null;
    if (st !== REJECTED) throw fail(st);
    const reason = message(call, free, MSG_ROOM);
    if (doc.isWellFormed() || !reason.startsWith('frontmatter does not parse (')) return reason;
    // Only a parse error quotes the document: put a malformed line back.
    const parsed = readFrontmatter(doc);
    if (parsed.st !== PARSE_ERROR) return reason;
    const built = parsed.read();
    return reason.replace(built, () => restoreParseError(built, doc));
  }

  // --- what containment acts on (the playground's view) ----------------------------------

  /**
   * Every finding in `text`, in order: what the reference lint reports (invisibles,
   * Tag runs, orphan selectors, controls, unpaired bidi) and what strict acts on
   * (what it drops, escape sequences, controls, forgery literals, envelope markers,
   * special tokens, hidden comments). Offsets are UTF-16 indices into `text`.
   */
  function scanText(text) {
    const str = String(text);
    let room = 4096;
    for (;;) {
      const {
        regions: [[t, tl]],
        free,
      } = layout([str], room);
      const st = wasm.aw_findings(t, tl, free, room);
      if (st === BUFFER_TOO_SMALL) {
        room = align(outLen());
        continue;
      }
      if (st !== OK) throw fail(st);
      const w = new Uint32Array(memory.buffer, free, outLen() / 4).slice();
      const bytes = bytesAt(t, tl).slice();
      // Byte offset → UTF-16 index, walking the UTF-8 once (offsets are not sorted
      // across the two scans, so the walk is a table).
      const unitAt = new Uint32Array(tl + 1);
      for (let i = 0, u = 0; i <= tl; ) {
        unitAt[i] = u;
        if (i === tl) break;
        const b = bytes[i];
        const n = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
        for (let k = 1; k < n; k++) unitAt[i + k] = u;
        i += n;
        u += n === 4 ? 2 : 1;
      }
      const found = [];
      for (let i = 0; i + 4 <= w.length; i += 4) {
        const [kind, start, len, cp] = [w[i], w[i + 1], w[i + 2], w[i + 3]];
        const from = unitAt[start];
        const to = unitAt[start + len];
        found.push({ kind: FINDING_KINDS.get(kind) ?? `kind-${kind}`, start: from, end: to, codePoint: cp, text: str.slice(from, to) });
      }
      return found;
    }
  }

  return Object.freeze({
    version: info(0),
    unicodeVersion: info(1),
    envelope: Object.freeze({ begin: info(2), end: info(3) }),
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
    scanText,
  });
}
