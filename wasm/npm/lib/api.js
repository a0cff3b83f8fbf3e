// The named exports over one instance, shared by the entry points: each entry
// instantiates the module its runtime's way and hands it to `bind`.

import { createAirlock } from './airlock.js';

export { createAirlock };
export * from './constants.js';

let instance = null;

/** Binds the named functions to the instance made from `module`. */
export function bind(module) {
  instance = createAirlock({ module });
}

/** The instance behind the named functions. */
export function defaultAirlock() {
  return instance;
}

export function sanitizeProse(text, options) {
  return instance.sanitizeProse(text, options);
}

export function truncateToBytes(text, maxBytes) {
  return instance.truncateToBytes(text, maxBytes);
}

export function stripDangerousInvisibles(text, options) {
  return instance.stripDangerousInvisibles(text, options);
}

export function isDangerousInvisibleCodePoint(cp) {
  return instance.isDangerousInvisibleCodePoint(cp);
}

export function deriveFenceToken(payload) {
  return instance.deriveFenceToken(payload);
}

export function assertMachineToken(value, options) {
  return instance.assertMachineToken(value, options);
}

export function assertNoControlChars(value, field, options) {
  return instance.assertNoControlChars(value, field, options);
}

export function assertSafeDescription(value, options) {
  return instance.assertSafeDescription(value, options);
}

export function assertSafeGlob(glob, options) {
  return instance.assertSafeGlob(glob, options);
}

export function assertNoWrapperForgery(text, field) {
  return instance.assertNoWrapperForgery(text, field);
}

export function parseGlobsFrontmatter(document) {
  return instance.parseGlobsFrontmatter(document);
}

export function frontmatterRefusalReason(document, options) {
  return instance.frontmatterRefusalReason(document, options);
}

export function scanText(text) {
  return instance.scanText(text);
}
