import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { displayHeaderName } from './headers.js';
import { docsCsp } from './security-headers.js';

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
    },
  });
  // Swagger UI's pages: a strict CSP (docsCsp) and no framing; the base security headers come from the root.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, transformStaticCSP: docsCsp });
  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/docs' || request.url.startsWith('/docs/')) reply.header('x-frame-options', 'DENY');
  });
}
