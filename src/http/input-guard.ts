import type { FastifyInstance } from 'fastify';
import { textProblem } from '../directory/text-rules.js';
import { badRequest } from './errors.js';

/**
 * Path and query values follow the one text rule (src/directory/text-rules.ts): no NUL character
 * (PostgreSQL text cannot store one, so an id such as `/files/a%00b` would be a 500 there and a plain 404
 * on SQLite) and no lone surrogate. Refused alike on both stores, before any lookup. Runs after the
 * credential checks of `onRequest`, so an unauthenticated caller learns nothing.
 */
export function installInputGuard(app: FastifyInstance): void {
  // A callback hook walking the values in place: it runs on every request, so no promise or array per request.
  app.addHook('preValidation', (request, _reply, done) => {
    done(partProblem('path', request.params) ?? partProblem('query', request.query));
  });
}

function partProblem(part: 'path' | 'query', values: unknown): Error | undefined {
  if (typeof values !== 'object' || values === null) return undefined;
  for (const name in values) {
    if (!Object.hasOwn(values, name)) continue;
    const value = (values as Record<string, unknown>)[name];
    let problem = textProblem(name);
    if (problem === undefined && Array.isArray(value)) {
      for (const item of value) if ((problem = problemOf(item)) !== undefined) break;
    } else problem ??= problemOf(value);
    if (problem !== undefined) return badRequest(`${part} parameter ${JSON.stringify(printable(name))} ${problem}`, 'invalid_request');
  }
  return undefined;
}

function problemOf(value: unknown): string | undefined {
  return typeof value === 'string' ? textProblem(value) : undefined;
}

/** A parameter's name as a refusal may quote it. */
function printable(name: string): string {
  return name.replaceAll('\u0000', '').replace(/\p{Cs}/gu, '\uFFFD');
}
