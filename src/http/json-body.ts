import type { FastifyInstance } from 'fastify';
import { childPath, textProblem } from '../directory/text-rules.js';
import { badRequest, type HttpError } from './errors.js';

/**
 * The bounds of every JSON body, on every route (this parser, `POST /events`' and SCIM's). Measured
 * 2026-11-26 (docs/operations.md, "Protection"): the platform's pushes nest at most 3 levels (every kind
 * and production variant of src/conformance), SCIM PatchOps of Okta and Entra at most 5, the demo
 * snapshot 5, the console's writes at most 5. 64 is far above all of them and far below what any
 * recursive reader (ours, Ajv's, the serializer's) could not handle. The size bound is Fastify's
 * `bodyLimit` (413 past it), set in src/composition/app.ts from `MAX_JSON_BODY_BYTES`.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * Whether JSON text opens more than `maxDepth` arrays or objects inside one another. A scan of the text
 * without recursion and without parsing, so a body nested 100,000 levels deep costs one pass over its
 * characters and never reaches JSON.parse or any recursive reader. Brackets inside strings do not count.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index += 1;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) depth -= 1;
  }
  return false;
}

/** The refusal of a body past the nesting bound, the same on every route. */
export function tooDeepError(): HttpError {
  return badRequest(`the body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`, 'invalid_json');
}

/**
 * Parses a JSON body within the bounds: past the nesting bound, or not JSON at all, it is a 400
 * `invalid_json` (thrown as an HttpError). `empty` says how an empty body is taken.
 */
export function parseBoundedJson(text: string, options: { empty: 'refuse' | 'undefined' } = { empty: 'refuse' }): unknown {
  if (text.trim() === '') {
    if (options.empty === 'undefined') return undefined;
    throw badRequest('the body is empty; send a JSON value', 'invalid_json');
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeepError();
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(`the body is not valid JSON: ${(error as Error).message}`, 'invalid_json');
  }
}

/**
 * What a JSON body may not hold anywhere, keys included: a string that breaks the one text rule
 * (src/directory/text-rules.ts: a NUL, which PostgreSQL text cannot store, or a lone surrogate, which
 * SQLite would store as invalid UTF-8 no lookup finds again: the two stores would answer differently), and
 * a number JSON.parse turned into ±Infinity (`1e400`), which no field of ours means. Returns the first
 * problem naming where it is (`$.users[3].name contains a NUL character (U+0000)`), or undefined. The
 * parser checked the nesting bound before, so the recursion is bounded.
 */
export function jsonBodyProblem(value: unknown, path = '$', depth = 0): string | undefined {
  const found = problemWithin(value, depth);
  if (found === undefined) return undefined;
  // The path is spelt out only for the value refused (never a string per element of a body that passes).
  let at = path;
  for (let index = found.keys.length - 1; index >= 0; index -= 1) at = childPath(at, found.keys[index]!);
  return `${at} ${found.problem}`;
}

/** The first problem under `value` and the keys that lead to it, innermost first. */
function problemWithin(value: unknown, depth: number): { keys: Array<string | number>; problem: string } | undefined {
  if (depth > MAX_JSON_DEPTH) return { keys: [], problem: `nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects` };
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem === undefined ? undefined : { keys: [], problem };
  }
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { keys: [], problem: 'has a number too large to represent' };
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = problemWithin(value[index], depth + 1);
      if (found) return (found.keys.push(index), found);
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const keyProblem = textProblem(key);
    if (keyProblem !== undefined) return { keys: [], problem: `has a field name that ${keyProblem}` };
    const found = problemWithin((value as Record<string, unknown>)[key], depth + 1);
    if (found) return (found.keys.push(key), found);
  }
  return undefined;
}

/**
 * The JSON body parser of every route but `POST /events` (which keeps the raw text and parses it itself,
 * and stores what it must keep made storable) and SCIM's `application/scim+json`: malformed, empty, too
 * deeply nested bodies, and bodies with a string that breaks the text rule or an infinite number, are a
 * 400 `invalid_json` in the one error shape, before any route sees them: nothing is written.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    let parsed: unknown;
    try {
      parsed = parseBoundedJson(body as string);
    } catch (error) {
      return done(error as Error, undefined);
    }
    const problem = jsonBodyProblem(parsed);
    if (problem) return done(badRequest(`the body is refused: ${problem}`, 'invalid_json'), undefined);
    done(null, parsed);
  });
}
