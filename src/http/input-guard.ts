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
  app.addHook('preValidation', async (request) => {
    for (const [part, values] of [
      ['path', request.params],
      ['query', request.query],
    ] as const) {
      if (typeof values !== 'object' || values === null) continue;
      for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
        const problem = [name, ...(Array.isArray(value) ? value : [value])].map(problemOf).find((found) => found !== undefined);
        if (problem !== undefined) throw badRequest(`${part} parameter ${JSON.stringify(printable(name))} ${problem}`, 'invalid_request');
      }
    }
  });
}

function problemOf(value: unknown): string | undefined {
  return typeof value === 'string' ? textProblem(value) : undefined;
}

/** A parameter's name as a refusal may quote it. */
function printable(name: string): string {
  return name.replaceAll('\u0000', '').replace(/\p{Cs}/gu, '\uFFFD');
}
