// Types of `airlock`, a drop-in replacement for the reference module `sanitize.mjs`.

/** Hard cap on the rendered `insight` region (2000). */
export declare const INSIGHT_MAX_BYTES: 2000;
/** Hard cap on a single rendered evidence bullet (2000). */
export declare const EVIDENCE_ITEM_MAX_BYTES: 2000;
/** Hard cap on the whole rendered `## Evidence` region (5000). */
export declare const EVIDENCE_MAX_BYTES: 5000;
/** Hard cap on the H1 title (256). */
export declare const TITLE_MAX_BYTES: 256;
/** Largest accepted `description:` in bytes (a reject bound, not a cut). */
export declare const DESCRIPTION_MAX_BYTES: 512;
/** Opening delimiter of the untrusted-content region. */
export declare const UNTRUSTED_BEGIN: string;
/** Closing delimiter of the untrusted-content region. */
export declare const UNTRUSTED_END: '<!-- untrusted-content:end -->';
/** The delivery-wrapper literals that reject prose, in checking order (frozen). */
export declare const WRAPPER_FORGERY_LITERALS: readonly [
  '</APPLICABLE-RULES>',
  '## Applicable Rules (scoped',
  '</LEARNINGS-INDEX>',
  '## Learnings Index (selected',
];
/** `host-class:` — `^[A-Za-z0-9._-]+$` */
export declare const HOST_CLASS_RE: RegExp;
/** `learning-key:` — `^[a-z0-9/-]+$` */
export declare const LEARNING_KEY_RE: RegExp;
/** `expires-at:` — `^\d{4}-\d{2}-\d{2}$` */
export declare const EXPIRES_AT_RE: RegExp;
/** `learning-id` / `source-session` — `^[A-Za-z0-9._:-]+$` */
export declare const PROVENANCE_TOKEN_RE: RegExp;

/** Anything with the two members `assertMachineToken` uses; normally a RegExp. */
export interface TokenPattern {
  readonly source: string;
  test(value: string): boolean;
}

export interface SanitizeOptions {
  /** The field named in a rejection message (e.g. `'insight'`). */
  field: string;
  /** The byte cap; the truncation note is outside it. */
  maxBytes: number;
  /** `'reference'` (default, byte-identical with sanitize.mjs) or `'strict'` (docs/PROFILE-STRICT.md). */
  profile?: Profile;
}

export interface MachineTokenOptions {
  field: string;
  /** One of the four exported patterns (checked in Rust) or any other RegExp (tested in JavaScript). */
  pattern: RegExp | TokenPattern;
}

export interface TruncateResult {
  text: string;
  truncated: boolean;
  /** The ORIGINAL UTF-8 length. */
  bytes: number;
}

export type FrontmatterValue = string | boolean | number;

export interface FrontmatterMeta {
  description?: string;
  mode?: string;
  'host-class'?: string;
  alwaysApply?: boolean;
  'expires-at'?: string;
  'learning-key'?: string;
  'auto-generated'?: boolean;
  confidence?: number;
  tier?: string;
}

export interface ParsedFrontmatter {
  /** `null` when there is no `globs`/`paths` key (or no frontmatter block). */
  globs: string[] | null;
  /** Kept keys in the reference's insertion order. */
  meta: FrontmatterMeta;
}

/** Strips invisibles and controls (but TAB/LF), rejects wrapper forgeries, redacts envelope markers, caps in bytes. Throws `Error` on a forgery. */
export declare function sanitizeProse(text: unknown, options: SanitizeOptions): string;
/** The longest whole-code-point prefix of at most `maxBytes` UTF-8 bytes. */
export declare function truncateToBytes(text: unknown, maxBytes: number): TruncateResult;
/** Drops dangerous invisibles and orphan variation selectors; keeps controls. Like the reference, walks any iterable and throws `TypeError` for anything else (a number, null). */
/** A containment profile. */
export type Profile = 'reference' | 'strict';
/** The profile of a call. */
export interface ProfileOptions {
  profile?: Profile;
}
export declare function stripDangerousInvisibles(
  text: string | Iterable<string>,
  options?: ProfileOptions,
): string;
/** Whether `cp` is in the dangerous-invisible table. Like the reference, a non-integer or non-number is converted and tested against the table's multi-code-point ranges only (`'8203'` is true, `'173'` false). */
export declare function isDangerousInvisibleCodePoint(cp: unknown): boolean;
/** 8 lower-case hex characters provably absent from `payload` (64 in the pathological fallback). */
export declare function deriveFenceToken(payload: unknown): string;
/** Returns `value` when it is a non-empty string matching `pattern`; throws `Error` otherwise. */
export declare function assertMachineToken(value: unknown, options: MachineTokenOptions): string;
/** Returns `value` when it is a string without controls or dangerous invisibles; throws `Error` otherwise. */
export declare function assertNoControlChars(value: unknown, field: string, options?: ProfileOptions): string;
/** Returns `value` when it is a safe one-line description of at most 512 bytes; throws `Error` otherwise. */
export declare function assertSafeDescription(value: unknown, options?: ProfileOptions): string;
/** Returns `glob` when it cannot break out of the renderer's quoting; throws `Error` otherwise. */
export declare function assertSafeGlob(glob: unknown, options?: ProfileOptions): string;
/** Throws `Error` when `text` contains a delivery-wrapper literal (ASCII-case-insensitively). */
export declare function assertNoWrapperForgery(text: unknown, field: string): void;
/** `rule-loader.mjs`'s parser. Throws `Error('Malformed frontmatter line: "…"')` on a malformed line, and the reference's `TypeError` for a value without a `split` method. */
export declare function parseGlobsFrontmatter(document: string): ParsedFrontmatter;
/** Which release of the writer's gate `frontmatterRefusalReason` applies (SPEC §8, §8b). */
export interface RefusalOptions {
  /** `'3.20'` (session-orchestrator 3.20.0, the default) or `'3.21'` (3.21.0); a trailing `.0` is accepted. Anything else throws `RangeError`. */
  gate?: '3.20' | '3.21' | '3.20.0' | '3.21.0';
}
/** The writer's structural gate: a refusal reason, or `null` when the document may be written. */
export declare function frontmatterRefusalReason(document: string, options?: RefusalOptions): string | null;

export interface CreateAirlockOptions {
  /** Path of libairlock; when given, the only path tried. */
  library?: string;
}

/** An instance bound to one loaded copy of libairlock, with every function above. */
export interface Airlock {
  readonly libraryPath: string;
  /** libairlock's version, e.g. `"0.1.0"`. */
  readonly version: string;
  /** The Unicode version of the Extended_Pictographic table, e.g. `"17.0.0"`. */
  readonly unicodeVersion: string;
  readonly envelope: { readonly begin: string; readonly end: string };
  sanitizeProse: typeof sanitizeProse;
  truncateToBytes: typeof truncateToBytes;
  stripDangerousInvisibles: typeof stripDangerousInvisibles;
  isDangerousInvisibleCodePoint: typeof isDangerousInvisibleCodePoint;
  deriveFenceToken: typeof deriveFenceToken;
  assertMachineToken: typeof assertMachineToken;
  assertNoControlChars: typeof assertNoControlChars;
  assertSafeDescription: typeof assertSafeDescription;
  assertSafeGlob: typeof assertSafeGlob;
  assertNoWrapperForgery: typeof assertNoWrapperForgery;
  parseGlobsFrontmatter: typeof parseGlobsFrontmatter;
  frontmatterRefusalReason: typeof frontmatterRefusalReason;
}

/** Loads libairlock from `options.library`, else `AIRLOCK_LIB`, else the workspace build output. */
export declare function createAirlock(options?: CreateAirlockOptions): Airlock;
/** The instance behind the named functions (created on first use). */
export declare function defaultAirlock(): Airlock;
