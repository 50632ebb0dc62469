import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { displayHeaderName } from './headers.js';
import { docsCsp } from './security-headers.js';

/** The sections of /docs, in order; the first whose prefix a route's URL starts with is its tag. */
const ROUTE_TAGS: ReadonlyArray<{ name: string; description: string; prefixes: readonly string[] }> = [
  { name: 'callbacks', description: 'What the platform and its editor call: users, files, teams, departments, search, the signed admin callbacks', prefixes: [] },
  { name: 'events', description: 'Event pushes from the platform', prefixes: ['/events'] },
  { name: 'management', description: 'The management API (ADMIN_API_KEY): the directory, grants, the event log, audit, sync runs', prefixes: ['/api/'] },
  { name: 'notifications', description: 'Notification channels and preferences (ADMIN_API_KEY)', prefixes: [] },
  { name: 'scim', description: 'SCIM 2.0 provisioning (SCIM_TOKEN)', prefixes: ['/scim/'] },
  { name: 'platform', description: "Calls to the platform's API through collab-host (ADMIN_API_KEY, PLATFORM_API_URL)", prefixes: ['/api/platform/', '/api/seats'] },
  { name: 'operations', description: 'Health, readiness, metrics and the console session', prefixes: ['/healthz', '/readyz', '/metrics', '/console'] },
];

/** The tag of a route that names none: the most specific prefix it starts with, else a callback. */
function tagOf(url: string): string {
  let best: { name: string; length: number } = { name: 'callbacks', length: 0 };
  for (const tag of ROUTE_TAGS) {
    for (const prefix of tag.prefixes) if (url.startsWith(prefix) && prefix.length > best.length) best = { name: tag.name, length: prefix.length };
  }
  return best.name;
}

/**
 * OpenAPI documentation of every route, built from the routes' own TypeBox schemas, served at `/docs`
 * (the JSON at `/docs/json`). Register before the routes: the document collects them as they are added.
 * Operations name their credential: the user token by default, `platformSignature` on the signed
 * callbacks, `adminKey` on the management API.
 */
export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'collab-host',
        description:
          "The integrator's callback server for an embedded collaborative-document platform (the callback interface the platform calls) and the management API under /api.",
        version: '0.1.0',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          userToken: { type: 'apiKey', in: 'header', name: displayHeaderName(config.headerBrand, 'Token') },
          platformSignature: { type: 'apiKey', in: 'header', name: displayHeaderName(config.headerBrand, 'Signature') },
          adminKey: { type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY' },
        },
      },
      security: [{ userToken: [] }],
      tags: ROUTE_TAGS.map(({ name, description }) => ({ name, description })),
    },
    // Routes that name no tag are grouped by where they live, so /docs shows sections, not one "default".
    transform: ({ schema, url }) => ({ schema: schema && !schema.tags ? { ...schema, tags: [tagOf(url)] } : schema, url }),
  });
  // Swagger UI's pages: a strict CSP (docsCsp) and no framing; the base security headers come from the root.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, transformStaticCSP: docsCsp });
  // A callback hook, not an async one: it runs on every request, so no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url === '/docs' || request.url.startsWith('/docs/')) reply.header('x-frame-options', 'DENY');
    done();
  });
}
