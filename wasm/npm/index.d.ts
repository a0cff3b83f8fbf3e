// Types of `airlock-wasm`: the Node binding's functions and constants (its own
// declarations, lib/node-api.d.ts), created from a WebAssembly module instead of a
// native library.

import type {
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
} from './lib/node-api.js';

export {
  INSIGHT_MAX_BYTES,
  EVIDENCE_ITEM_MAX_BYTES,
  EVIDENCE_MAX_BYTES,
  TITLE_MAX_BYTES,
  DESCRIPTION_MAX_BYTES,
  UNTRUSTED_BEGIN,
  UNTRUSTED_END,
  WRAPPER_FORGERY_LITERALS,
  HOST_CLASS_RE,
  LEARNING_KEY_RE,
  EXPIRES_AT_RE,
  PROVENANCE_TOKEN_RE,
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
} from './lib/node-api.js';
export type {
  TokenPattern,
  SanitizeOptions,
  MachineTokenOptions,
  TruncateResult,
  FrontmatterValue,
  FrontmatterMeta,
  ParsedFrontmatter,
  Profile,
  ProfileOptions,
  RefusalOptions,
} from './lib/node-api.js';

/** What a finding of `scanText` is. */
export type FindingKind =
  | 'invisible'
  | 'tag-run'
  | 'orphan-selector'
  | 'control'
  | 'unpaired-bidi'
  | 'strict-dropped'
  | 'escape-sequence'
  | 'strict-control'
  | 'forgery-literal'
  | 'envelope-marker'
  | 'special-token'
  | 'hidden-comment';

/** One thing containment acts on; `start`/`end` are UTF-16 indices into the text. */
export interface Finding {
  kind: FindingKind;
  start: number;
  end: number;
  /** The (first) code point. */
  codePoint: number;
  text: string;
}

/** Every finding of the reference lint and of the strict profile's scan, in order. */
export declare function scanText(text: unknown): Finding[];

export interface CreateAirlockOptions {
  /** airlock.wasm: compiled, instantiated, or its bytes (compiled synchronously). */
  module: WebAssembly.Module | WebAssembly.Instance | ArrayBuffer | ArrayBufferView;
}

/** An instance over one instantiation of the module, with every function above. */
export interface Airlock {
  /** airlock-core's version, e.g. `"0.1.0"`. */
  readonly version: string;
  /** The Unicode version of the tables, e.g. `"17.0.0"`. */
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
  scanText: typeof scanText;
}

/** Instantiates the module you hand it (for loading it your own way). */
export declare function createAirlock(options: CreateAirlockOptions): Airlock;
/** The instance behind the named functions (made when the package was imported). */
export declare function defaultAirlock(): Airlock;
