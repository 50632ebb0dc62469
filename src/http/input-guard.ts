import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';

/**
 * Path and query values may not hold a NUL character: PostgreSQL text cannot store one, so an id such as
 * `/files/a%00b` would be a 500 there and a plain 404 on SQLite. Refused alike on both stores, before any
 * lookup. Runs after the credential checks of `onRequest`, so an unauthenticated caller learns nothing.
 */
export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [part, values] of [
      ['path', request.params],
      ['query', request.query],
    ] as const) {
      if (typeof values !== 'object' || values === null) continue;
      for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
        if (hasNul(name) || (Array.isArray(value) ? value.some(hasNul) : hasNul(value))) {
          throw badRequest(`${part} parameter ${JSON.stringify(name.replaceAll('\u0000', ''))} contains a NUL character`, 'invalid_request');
        }
      }
    }
  });
}

function hasNul(value: unknown): boolean {
  return typeof value === 'string' && value.includes('\u0000');
}
