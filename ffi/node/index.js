// airlock for Node: a drop-in replacement for the reference module `sanitize.mjs`
// (plus `parseGlobsFrontmatter` and the writer's `frontmatterRefusalReason`), computed
// by libairlock through its C ABI.
//
// The named functions use a default instance, created on first use from the
// AIRLOCK_LIB environment variable or the workspace's build output. Use
// `createAirlock({ library })` to pick the library explicitly.

import { createAirlock } from './lib/airlock.js';

export { createAirlock };
export * from './lib/constants.js';

let instance = null;

/** The default instance (created, and the library loaded, on first use). */
export function defaultAirlock() {
  if (instance === null) instance = createAirlock();
  return instance;
}

export function sanitizeProse(text, options) {
  return (instance ?? defaultAirlock()).sanitizeProse(text, options);
}

export function truncateToBytes(text, maxBytes) {
  return (instance ?? defaultAirlock()).truncateToBytes(text, maxBytes);
}

export function stripDangerousInvisibles(text, options) {
  return (instance ?? defaultAirlock()).stripDangerousInvisibles(text, options);
}

export function isDangerousInvisibleCodePoint(cp) {
  return (instance ?? defaultAirlock()).isDangerousInvisibleCodePoint(cp);
}

export function deriveFenceToken(payload) {
  return (instance ?? defaultAirlock()).deriveFenceToken(payload);
}

export function assertMachineToken(value, options) {
  return (instance ?? defaultAirlock()).assertMachineToken(value, options);
}

export function assertNoControlChars(value, field, options) {
  return (instance ?? defaultAirlock()).assertNoControlChars(value, field, options);
}

export function assertSafeDescription(value, options) {
  return (instance ?? defaultAirlock()).assertSafeDescription(value, options);
}

export function assertSafeGlob(glob, options) {
  return (instance ?? defaultAirlock()).assertSafeGlob(glob, options);
}

export function assertNoWrapperForgery(text, field) {
  return (instance ?? defaultAirlock()).assertNoWrapperForgery(text, field);
}

export function parseGlobsFrontmatter(document) {
  return (instance ?? defaultAirlock()).parseGlobsFrontmatter(document);
}

export function frontmatterRefusalReason(document, options) {
  return (instance ?? defaultAirlock()).frontmatterRefusalReason(document, options);
}
