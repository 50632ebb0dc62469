import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';

/**
 * What a JSON body may not hold anywhere (keys included): a NUL character, which PostgreSQL text cannot
 * store (so the two stores would answer differently), and a number JSON.parse turned into ±Infinity
 * (`1e400`), which no field of ours means. Returns the first problem, or undefined.
 */
export function jsonBodyProblem(value: unknown, depth = 0): string | undefined {
  if (depth > 64) return 'nests deeper than 64 levels';
  if (typeof value === 'string') return value.includes('\u0000') ? 'contains a NUL character' : undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'has a number too large to represent';
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof key === 'string' && key.includes('\u0000')) return 'contains a NUL character';
    const problem = jsonBodyProblem(item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The JSON body parser of every route but `POST /events` (which keeps the raw text and parses it itself):
 * malformed, empty, NUL-bearing or infinite-number bodies are a 400 in the one error shape.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(badRequest('the body is empty; send a JSON value', 'invalid_json'), undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(badRequest(`the body is not valid JSON: ${(error as Error).message}`, 'invalid_json'), undefined);
    }
    const problem = jsonBodyProblem(parsed);
    if (problem) return done(badRequest(`the body ${problem}`, 'invalid_json'), undefined);
    done(null, parsed);
  });
}
