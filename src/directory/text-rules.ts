/**
 * The one rule for every string that enters collab-host, whatever the path (management API, snapshot
 * import, SCIM, LDAP, events, query and path parameters):
 * - well-formed Unicode: no lone surrogate (U+D800 to U+DFFF outside a pair). SQLite would store it as
 *   invalid UTF-8 that no later lookup finds again, PostgreSQL's driver would turn it into U+FFFD: the two
 *   stores would disagree and a row would exist that can never be read back;
 * - no NUL (U+0000), which PostgreSQL text cannot hold at all;
 * - ids without any control character (they travel in URLs, headers and logs);
 * - the length limits of the management API (`TEXT_LIMITS`), the same on every path.
 * A writer refuses what breaks the rule (400 naming the field) before anything is written; the event log,
 * which must keep every authentic push, stores it made storable instead (`storableText`).
 */

/** The longest value of each kind of field, in UTF-16 code units (what JSON Schema's maxLength counts here). */
export const TEXT_LIMITS = {
  /** An id of a team, department, user or file. */
  id: 255,
  /** A `user:ID`, `department:ID` or `team:ID` principal. */
  principal: 300,
  /** A name of a team, department, user, file or group. */
  name: 500,
  email: 500,
  /** One line of a user's watermark. */
  watermarkLine: 500,
  avatar: 2000,
  /** A download, full or content address. */
  url: 4000,
  ext: 32,
} as const;

/**
 * JSON Schema patterns of the rule, for TypeBox and Ajv schemas (both compile patterns with the `u` flag, so
 * a surrogate pair is one character and a lone surrogate matches nothing). Text: no NUL, no lone surrogate.
 * Id: no control character either.
 */
export const TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';
export const ID_PATTERN = '^[^\\u0000-\\u001F\\u007F\\uD800-\\uDFFF]*$';

/** What the patterns mean, as a refusal says it after the field's name. */
export const PATTERN_RULES: Readonly<Record<string, string>> = {
  [ID_PATTERN]: 'must be well-formed Unicode without control characters (U+0000 to U+001F, U+007F)',
  [TEXT_PATTERN]: 'must be well-formed Unicode without NUL (U+0000)',
};

/** With the `u` flag a surrogate pair is one code point: what `\p{Cs}` still matches stands alone. */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** What is wrong with one string (after the field's name: "… contains a NUL character"), or undefined. */
export function textProblem(value: string, maxLength?: number): string | undefined {
  if (value.includes('\u0000')) return 'contains a NUL character (U+0000)';
  if (LONE_SURROGATE.test(value)) return 'is not well-formed Unicode (it holds a lone surrogate)';
  if (maxLength !== undefined && value.length > maxLength) return `must have at most ${maxLength} characters`;
  return undefined;
}

/** One string that breaks the rule, and where: a JSON path such as `$.users[3].name`. */
export interface TextProblemAt {
  path: string;
  message: string;
}

/**
 * The first string of a parsed JSON value (object keys included) that breaks the rule, or undefined. The
 * walk stops at `maxDepth` (deeper values are the JSON bound's to refuse).
 */
export function findTextProblem(value: unknown, path = '$', maxDepth = 256): TextProblemAt | undefined {
  if (typeof value === 'string') {
    const message = textProblem(value);
    return message === undefined ? undefined : { path, message };
  }
  if (typeof value !== 'object' || value === null || maxDepth <= 0) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findTextProblem(value[index], `${path}[${index}]`, maxDepth - 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = textProblem(key);
    if (keyProblem !== undefined) return { path, message: `has a field name that ${keyProblem}` };
    const found = findTextProblem(item, childPath(path, key), maxDepth - 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Text as every store keeps it alike, for what must be stored whatever it holds (the event log's columns
 * read from a pushed body): NUL and lone surrogates become U+FFFD.
 */
export function storableText<T extends string | null | undefined>(text: T): T {
  if (typeof text !== 'string') return text;
  const wellFormed = LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
  return (wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '\uFFFD') : wellFormed) as T;
}

/** Appends a property or an index to a JSON path: `$.users` + 3 -> `$.users[3]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
