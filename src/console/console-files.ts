import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../http/error-handler.js';

/** Where `npm run build:console` writes the front end (console/vite.config.ts): `console/dist` of the package. */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../console/dist/', import.meta.url));

/**
 * No CDN, no inline script or style, no framing: everything the page loads comes from /console itself,
 * and it talks only to this origin.
 */
const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/**
 * Serves the built front end under /console/ (`/console` redirects there). Vite names assets by content
 * hash, so they are cached for a year; index.html is revalidated every time. When the build is missing
 * the console answers 503 `console_not_built` and says which command builds it.
 */
export async function serveConsoleFiles(app: FastifyInstance, dir: string): Promise<void> {
  if (!existsSync(join(dir, 'index.html'))) {
    const notBuilt = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.status(503).send(errorBody('console_not_built', `the console is not built (no ${join(dir, 'index.html')}): run npm run build:console`));
    app.get('/console', { schema: { hide: true } }, notBuilt);
    app.get('/console/*', { schema: { hide: true } }, notBuilt);
    return;
  }
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console/'));
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    decorateReply: false,
    schemaHide: true,
    cacheControl: false,
    setHeaders: (res, path) => {
      for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
      res.setHeader('cache-control', path.includes(join(dir, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
