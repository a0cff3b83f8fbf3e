// A JavaScript re-implementation of the reference module's prose path
// (sanitizeProse, stripDangerousInvisibles, truncateToBytes and what they use),
// following its logic step by step. For comparison only: the benchmark's baseline,
// and the oracle for the binding's quirk tests (odd maxBytes, lone surrogates).

import { createHash } from 'node:crypto';

const ENVELOPE_TOKEN_RE = /untrusted-content:(?:start|end)/gi;
const CONTROL_GLOBAL_RE = /\p{Cc}/gu;
const PICTOGRAPHIC_RE = /^\p{Extended_Pictographic}$/u;

const WRAPPER_FORGERY_LITERALS = [
  '</APPLICABLE-RULES>',
  '## Applicable Rules (scoped',
  '</LEARNINGS-INDEX>',
  '## Learnings Index (selected',
];

// SPEC §2's table.
const INVISIBLE_RANGES = [
  [0x00ad, 0x00ad],
  [0x115f, 0x1160],
  [0x180e, 0x180e],
  [0x200b, 0x200d],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x2069],
  [0x3164, 0x3164],
  [0xfeff, 0xfeff],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
];

export function isDangerousInvisibleCodePoint(cp) {
  for (const [lo, hi] of INVISIBLE_RANGES) if (cp >= lo && cp <= hi) return true;
  return false;
}

function isOrphanSelector(cp, prev) {
  if (cp >= 0xfe00 && cp <= 0xfe0e) return true;
  if (cp !== 0xfe0f) return false;
  return prev === null || !PICTOGRAPHIC_RE.test(String.fromCodePoint(prev));
}

export function stripDangerousInvisibles(text) {
  let out = '';
  let prev = null;
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    if (!isDangerousInvisibleCodePoint(cp) && !isOrphanSelector(cp, prev)) out += ch;
    prev = cp;
  }
  return out;
}

function rejection(field, why, value) {
  const shown = JSON.stringify(typeof value === 'string' ? value.slice(0, 120) : value);
  return new Error(`reconcile-sanitize: rejecting record — ${field} ${why} (got ${shown})`);
}

export function assertNoWrapperForgery(text, field) {
  const haystack = String(text).toLowerCase();
  for (const literal of WRAPPER_FORGERY_LITERALS) {
    if (haystack.includes(literal.toLowerCase())) {
      throw rejection(field, `must not contain the delivery-wrapper literal ${JSON.stringify(literal)}`, literal);
    }
  }
}

export function truncateToBytes(text, maxBytes) {
  const str = String(text);
  const bytes = Buffer.byteLength(str, 'utf8');
  if (bytes <= maxBytes) return { text: str, truncated: false, bytes };
  let out = '';
  let used = 0;
  for (const ch of str) {
    const width = Buffer.byteLength(ch, 'utf8');
    if (used + width > maxBytes) break;
    out += ch;
    used += width;
  }
  return { text: out, truncated: true, bytes };
}

export function sanitizeProse(text, { field, maxBytes }) {
  const stripped = stripDangerousInvisibles(String(text)).replace(CONTROL_GLOBAL_RE, (c) =>
    c === '\t' || c === '\n' ? c : '',
  );
  assertNoWrapperForgery(stripped, field);
  const framed = stripped.replace(ENVELOPE_TOKEN_RE, '[redacted-envelope-marker]');
  const { text: capped, truncated, bytes } = truncateToBytes(framed, maxBytes);
  return truncated
    ? `${capped} […truncated by the reconciliation engine: ${bytes} bytes exceeded the ${maxBytes}-byte cap]`
    : capped;
}

// SPEC §6, as the reference computes it: Node's SHA-256 over the UTF-8 of
// `${salt}\n${payload}` (a lone surrogate as U+FFFD), and the string's own search.
export function deriveFenceToken(payload) {
  const text = String(payload);
  for (let salt = 0; salt < 64; salt++) {
    const token = createHash('sha256').update(`${salt}\n${text}`).digest('hex').slice(0, 8);
    if (!text.includes(token)) return token;
  }
  return createHash('sha256').update(`64\n${text}`).digest('hex');
}
