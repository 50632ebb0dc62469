import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, unauthorized } from '../http/errors.js';

/**
 * A preHandler for the management API: `Authorization: Bearer ADMIN_API_KEY`, compared in constant time.
 * Without a configured key the API is off and says so (404 `admin_api_disabled`).
 */
export function adminKeyGuard(adminApiKey: string | undefined) {
  const expected = adminApiKey === undefined ? undefined : digest(adminApiKey);
  return async function requireAdminKey(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (expected === undefined) {
      throw new HttpError(404, 'admin_api_disabled', 'the management API is off: set ADMIN_API_KEY to turn it on');
    }
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header) : null;
    if (!match) throw unauthorized('the management API needs Authorization: Bearer <ADMIN_API_KEY>', 'admin_key_missing');
    // Hashing both sides gives equal lengths, so the comparison leaks neither content nor length.
    if (!timingSafeEqual(digest(match[1] as string), expected)) throw unauthorized('the admin API key is not valid', 'admin_key_invalid');
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
