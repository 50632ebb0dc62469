import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from './app-context.js';
import { defaultTokenResolver, type TokenResolver } from './auth/token-resolver.js';
import { adminCallbacks } from './callbacks/admin.js';
import { directoryCallbacks } from './callbacks/index.js';
import { searchRoutes } from './callbacks/search.js';
import eventCallbacks from './callbacks/events.js';
import eventManagementRoutes from './manage/events-routes.js';
import type { Config } from './config.js';
import type { Directory } from './directory/directory.js';
import { installErrorHandler } from './http/error-handler.js';
import { installOpenApi } from './http/openapi.js';
import { manageApi } from './manage/index.js';
import { platformHeaders } from './http/headers.js';
import { installValidators } from './http/validators.js';
import { loggerOptions } from './logger.js';
import type { OpenDatabase } from './store/database.js';
import { SqlDirectory } from './store/sql-directory.js';

export interface AppDeps {
  config: Config;
  /** collab-host's own database (see `openDatabase`). */
  store: OpenDatabase;
  /** The host application's directory; defaults to the store's own tables. */
  directory?: Directory;
  /** The host application's token resolver; defaults to collab-host's own user tokens. */
  resolveToken?: TokenResolver;
  /** false silences request logging (tests); defaults to the configured level. */
  logger?: boolean;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the Fastify application without listening: the server and the tests (`app.inject`) share it. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: deps.logger === false ? false : loggerOptions(config.logLevel),
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: 1024 * 1024,
    trustProxy: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidators(app);
  installErrorHandler(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  const context: AppContext = Object.freeze({
    config,
    store: deps.store,
    directory: deps.directory ?? SqlDirectory.over(deps.store),
    headers: platformHeaders(config.headerBrand),
    resolveToken: deps.resolveToken ?? defaultTokenResolver(config.tokenSecret),
  });

  // Before any route: the OpenAPI document collects routes as they are added.
  await installOpenApi(app, config);

  app.get(
    '/healthz',
    { schema: { hide: true, response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );

  // Route modules, one per resource of the interface; each is given the same context.
  await app.register(directoryCallbacks, { context });
  await app.register(adminCallbacks, { context });
  await app.register(manageApi, { context, prefix: '/api' });
  await app.register(searchRoutes, { context });
  await app.register(eventCallbacks, { context });
  await app.register(eventManagementRoutes, { context });
  void context;

  return app;
}
