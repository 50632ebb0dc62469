import { ScimProblem } from './scim-protocol-error.js';

/**
 * SCIM attribute paths (RFC 7644 §3.10: `[schemaURN ":"] attrName ["." subAttrName]`) read by our own
 * rules, before any library sees them: a name is a letter (or `$`, for `$ref`) followed by letters,
 * digits, `-` and `_`, and never one of the names that reach an object's prototype in JavaScript.
 */

/** Names that would reach or replace an object's prototype if they became property keys. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const ATTRIBUTE_NAME = /^\$?[A-Za-z][A-Za-z0-9_-]*$/;
const URN = /^urn:[A-Za-z0-9][A-Za-z0-9-]{0,31}:[A-Za-z0-9()+,\-.:=@;$_!*'%/?#]+$/i;

/** An attribute path: the schema URN it names (if any) and one or two attribute names. */
export interface AttributePath {
  schema?: string;
  names: string[];
  /** As written, for messages. */
  text: string;
}

/** Is `name` one of the names that reach an object's prototype (whatever its case)? */
export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.has(name.toLowerCase());
}

/** The first reserved name among the `.`/`:`-separated parts of `text`, if any. */
export function reservedPartOf(text: string): string | undefined {
  return text.split(/[.:[\]\s"]+/).find((part) => isReservedName(part));
}

/**
 * Reads one attribute path, or throws `400 <scimType>` (invalidFilter, invalidPath, …) saying what is
 * wrong with it in our words.
 */
export function parseAttributePath(text: string, scimType: string, what = 'attribute path'): AttributePath {
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  const reserved = reservedPartOf(text);
  if (reserved !== undefined) throw new ScimProblem(400, scimType, `${what} ${shown} names "${reserved}", which is not an attribute`);
  let schema: string | undefined;
  let rest = text;
  if (/^urn:/i.test(text)) {
    const cut = text.lastIndexOf(':');
    schema = text.slice(0, cut);
    rest = text.slice(cut + 1);
    if (!URN.test(schema)) throw new ScimProblem(400, scimType, `${what} ${shown} does not start with a valid schema URN`);
  }
  const names = rest.split('.');
  if (names.length > 2 || !names.every((name) => ATTRIBUTE_NAME.test(name))) {
    throw new ScimProblem(400, scimType, `${what} ${shown} is not an attribute name (letters, digits, "-" and "_", optionally "name.subAttribute")`);
  }
  return { ...(schema === undefined ? {} : { schema }), names, text };
}

/** The most attributes one `attributes` or `excludedAttributes` list may name. */
export const MAX_LISTED_ATTRIBUTES = 64;

/**
 * A comma-separated `attributes` / `excludedAttributes` list (RFC 7644 §3.4.2.5), each item a valid
 * attribute path; anything else is `400 invalidFilter` naming the parameter.
 */
export function parseAttributeList(text: string, parameter: string): AttributePath[] {
  const items = text.split(',').map((item) => item.trim());
  if (items.length > MAX_LISTED_ATTRIBUTES) throw new ScimProblem(400, 'invalidFilter', `${parameter} names more than ${MAX_LISTED_ATTRIBUTES} attributes`);
  if (items.some((item) => item === '')) throw new ScimProblem(400, 'invalidFilter', `${parameter} must be a comma-separated list of attribute names, without empty items`);
  return items.map((item) => parseAttributePath(item, 'invalidFilter', `${parameter} item`));
}
