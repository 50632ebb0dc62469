import type { FastifyInstance } from 'fastify';

/** Headers every answer carries: no content sniffing, no Referer sent on from our pages. */
export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** HSTS for a service reached over https (a year; subdomains are the operator's own call). */
export const HSTS = 'max-age=31536000';

/** The headers of every answer of a service published at `publicUrl`. */
export function securityHeadersFor(publicUrl: string): Readonly<Record<string, string>> {
  return { ...BASE_SECURITY_HEADERS, ...(publicUrl.startsWith('https://') ? { 'strict-transport-security': HSTS } : {}) };
}

/**
 * Security headers on every answer, errors and 404s included (issue 20 item 10, issue 31 deliver 4):
 * `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`, and `Strict-Transport-Security`
 * when PUBLIC_URL is https (the service is then reached over TLS, by itself or behind a proxy). A route
 * that sets one of them itself (the console's pages) keeps its own. Register at the root, before the
 * routes, so that every plugin inherits the hook.
 */
export function installSecurityHeaders(app: FastifyInstance, options: { publicUrl: string }): void {
  const headers = Object.entries(securityHeadersFor(options.publicUrl));
  // A callback hook, not an async one: no promise per answer.
  app.addHook('onSend', (_request, reply, payload, done) => {
    for (const [name, value] of headers) if (!reply.hasHeader(name)) reply.header(name, value);
    done(null, payload);
  });
}

/**
 * The CSP of `/docs` (Swagger UI): only this origin's scripts and styles plus the inline ones Swagger UI
 * ships (allowed by their hashes, `staticCSP`), no framing by anyone. Swagger UI's own policy says
 * `upgrade-insecure-requests`, which would break `/docs` on a plain-http development server: left out.
 */
export function docsCsp(swaggerPolicy: string): string {
  return swaggerPolicy
    .replace(/frame-ancestors [^;]*;/, "frame-ancestors 'none';")
    .replace(/\s*upgrade-insecure-requests;?/, '')
    .trim();
}
