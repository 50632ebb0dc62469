import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CSRF_HEADER, type ConsoleSessions } from '../auth/console-sessions.js';
import { recordRefusedAuth, recordSignIn, refuseWhileBlocked, type AuthFailureWatch } from '../http/auth-failures.js';
import { forbidden, unauthorized } from '../http/errors.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';

const SessionBody = Type.Object({
  csrfToken: Type.String({ description: `send it in ${CSRF_HEADER} with every write to /api` }),
  expiresAt: TimeSchema,
});

/**
 * Sign-in, the current session and sign-out of the operator console. The session travels only in an
 * HttpOnly, SameSite=Strict cookie (Secure over https) with the session's lifetime; the page keeps the
 * CSRF token in memory and reads it again from `GET /console/session` after a reload. A wrong key counts
 * with the client's other failed authentications (the same counter as /api's), and sign-ins, refused
 * sign-ins and sign-outs go to the audit log.
 */
export function sessionRoutes(plugin: FastifyInstance, sessions: ConsoleSessions, watch: AuthFailureWatch): void {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['console'];
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: sessions.options.secureCookie };

  app.post(
    '/console/session',
    {
      schema: {
        summary: 'Sign in to the operator console with the admin key; sets the session cookie',
        tags,
        body: Type.Object({ key: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false }),
        response: { 201: SessionBody, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      refuseWhileBlocked(watch, request, reply);
      const session = await sessions.signIn(request.body.key);
      if (!session) {
        recordRefusedAuth(watch, request, { credential: 'admin_key', code: 'admin_key_invalid' });
        throw unauthorized('the admin API key is not valid', 'admin_key_invalid');
      }
      recordSignIn(watch, request, 'admin_key', 'console sign-in', { expiresAt: session.expiresAt });
      reply.setCookie(sessions.cookieName, session.token, {
        ...cookieOptions,
        maxAge: session.maxAgeSeconds,
        expires: new Date(Date.parse(session.expiresAt)),
      });
      return reply.status(201).send({ csrfToken: session.csrfToken, expiresAt: session.expiresAt });
    },
  );

  app.get(
    '/console/session',
    {
      schema: {
        summary: "The signed-in console session (its CSRF token and expiry), or 401",
        tags,
        response: { 200: SessionBody, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const token = cookieOf(request, sessions);
      const session = token === undefined ? undefined : await sessions.verify(token);
      if (!session) throw unauthorized('not signed in to the console', 'console_session_invalid');
      return session;
    },
  );

  app.delete(
    '/console/session',
    {
      schema: {
        summary: `Sign out: ends the session (needs ${CSRF_HEADER}) and clears the cookie`,
        tags,
        response: { 204: Type.Null(), ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const token = cookieOf(request, sessions);
      if (token !== undefined && (await sessions.verify(token))) {
        const csrf = request.headers[CSRF_HEADER];
        if (!sessions.csrfMatches(token, typeof csrf === 'string' ? csrf : undefined)) {
          throw forbidden(`signing out needs the session's CSRF token in ${CSRF_HEADER}`, 'csrf_token_invalid');
        }
        await sessions.signOut(token);
        recordSignIn(watch, request, 'console_session', 'console sign-out');
      }
      return clearCookie(reply, sessions, cookieOptions).status(204).send();
    },
  );
}

function cookieOf(request: FastifyRequest, sessions: ConsoleSessions): string | undefined {
  return request.cookies[sessions.cookieName];
}

function clearCookie(reply: FastifyReply, sessions: ConsoleSessions, options: { path: string; httpOnly: boolean; sameSite: 'strict'; secure: boolean }): FastifyReply {
  return reply.clearCookie(sessions.cookieName, options);
}
