import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../http/app-context.js';
import { auditIndexer } from '../audit/audit-indexer.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { tokenSecrets } from '../auth/key-rotation.js';
import { defaultTokenResolver, type TokenResolver } from '../auth/token-resolver.js';
import { callbackRoutes } from '../callbacks/index.js';
import type { Config } from '../config/config.js';
import { consoleApp } from '../console/console-plugin.js';
import type { Directory } from '../directory/directory.js';
import { EventPipeline } from '../events/event-pipeline.js';
import { clientErrorHandlerFor } from '../http/client-errors.js';
import { frameworkErrorHandlerFor, installErrorHandler, MAX_PATH_PARAMETER_LENGTH, type ErrorShape } from '../http/error-handler.js';
import { installSecurityHeaders, securityHeadersFor } from '../http/security-headers.js';
import { installInputGuard } from '../http/input-guard.js';
import { installJsonBodyParser, MAX_JSON_BODY_BYTES } from '../http/json-body.js';
import { healthRoutes, type WorkerState } from '../http/health-routes.js';
import { addMetricsCollector, createAppMetrics, installRequestMetrics, type MetricsCollector } from '../http/metrics.js';
import { metricsRoutes, processMetricsCollector } from '../http/metrics-routes.js';
import { FailedAuthLimiter } from '../auth/failed-auth-limit.js';
import { installOverloadProtection, installRateLimits, timeoutOptions } from '../http/protection.js';
import { storeMetricsCollector } from '../http/store-metrics.js';
import { syncMetricsCollector } from '../http/sync-metrics.js';
import { sqlSyncRuns } from '../store/sync/sync-runs.js';
import { describeSyncHealth, syncHealthReader } from '../sync/sync-health.js';
import { auditMetricsCollector, eventMetricsCollector } from '../http/event-metrics.js';
import { installOpenApi } from '../http/openapi.js';
import { manageApi } from '../manage/index.js';
import { SCIM_CONTENT_TYPE, scimErrorBody } from '../scim/scim-error-body.js';
import { scimRoutes } from '../scim/scim-routes.js';
import { scimService } from '../sync/scim/scim-service.js';
import { platformHeaders } from '../http/headers.js';
import { installValidators } from '../http/validators.js';
import { loggerOptions, QuietRequestLog, requestLogger, type LogStream } from '../http/logger.js';
import { platformServices } from './platform-wiring.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { operationsStats } from '../store/connection/operations-stats.js';
import { SqlDirectory } from '../store/directory-reads/sql-directory.js';
import { ModelDirectory } from '../directory/read-model/model-directory.js';
import { READ_MODEL_POLL_MS, StoreModelSource } from '../store/change-feed/read-model/store-model-source.js';
import { composeDirectoryChanges, logThreadFailure } from './directory-writes.js';
import type { DirectoryChangeListener } from '../directory-changes/directory-changes.js';
import { DownloadLinks } from '../auth/download-link.js';
import type { FileStorage } from '../storage/file-storage.js';
import { hostContentSource } from '../storage/host-content.js';
import { createFileStorage } from '../storage/open-backend.js';
import { SqlFileObjects } from '../store/files/file-objects.js';
import { sharingFor } from './sharing-wiring.js';
import { consoleSessionsFor, managementServices } from './management-wiring.js';

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
  /** Where the log goes instead of stdout (tests read it). */
  logStream?: LogStream;
  /** The server's background workers, for /readyz (server.ts passes them; absent = the app runs none). */
  backgroundWorkers?: () => readonly WorkerState[];
  /** The store's read model (server.ts starts it to report its load); defaults to one started by the app. */
  readModel?: StoreModelSource;
  /** More collectors for /metrics (see `addMetricsCollector`). */
  metricsCollectors?: readonly MetricsCollector[];
  /** Run inside every directory change's transaction, after its writes (seat tasks, audit rows, …). */
  directoryListeners?: readonly DirectoryChangeListener[];
  /** The file storage (tests: another back end or clock); defaults to FILE_STORAGE's, closed with the app. */
  fileStorage?: FileStorage;
  /** The audit trail's writer (tests flush their own); defaults to one the app starts and flushes on close. */
  audit?: AuditTrail;
  /** The built console front end; defaults to console/dist of the package (tests build their own). */
  consoleDir?: string;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Refusals made before a route is known (431, 414, a malformed URL) under /scim/v2 come in SCIM's error
 * schema, as every other SCIM answer does; everywhere else in the one error shape.
 */
const ERROR_SHAPES: readonly ErrorShape[] = [
  { prefix: '/scim/v2', contentType: SCIM_CONTENT_TYPE, body: (status, code, message) => scimErrorBody(status, status === 400 ? 'invalidSyntax' : undefined, message, code) },
];

/** Builds the Fastify application without listening: the server and the tests (`app.inject`) share it. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: deps.logger === false ? false : loggerOptions(config.logLevel, deps.logStream),
    ...(config.production ? {} : { logController: new QuietRequestLog() }),
    childLoggerFactory: requestLogger,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: MAX_JSON_BODY_BYTES,
    trustProxy: false,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    frameworkErrors: frameworkErrorHandlerFor(ERROR_SHAPES, securityHeadersFor(config.publicUrl)),
    clientErrorHandler: clientErrorHandlerFor(ERROR_SHAPES, securityHeadersFor(config.publicUrl)),
    ...timeoutOptions(config.limits),
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidators(app);
  installErrorHandler(app, { retryAfterSeconds: config.limits.retryAfterSeconds });
  installSecurityHeaders(app, { publicUrl: config.publicUrl });
  installJsonBodyParser(app);
  installInputGuard(app);
  const metrics = createAppMetrics();
  installRequestMetrics(app, metrics);
  const overload = await installOverloadProtection(app, config.limits);
  await installRateLimits(app, config.limits);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  const fileStorage = deps.fileStorage ?? createFileStorage(config, new SqlFileObjects(deps.store.db), { warn: (details, message) => app.log.warn(details, message) });
  if (!deps.fileStorage) app.addHook('onClose', () => fileStorage.close());

  // The callbacks read the directory from memory (src/directory/read-model/), kept current by the change feed.
  const readModel = deps.directory ? undefined : (deps.readModel ?? startReadModel(app.log.child({ component: 'read-model' }), deps.store));
  if (readModel) app.addHook('onClose', async () => readModel.close());
  // A model the app started itself (library use, tests) is loaded before the app is ready; server.ts passes
  // its own and listens meanwhile, /readyz answering 503 until the load is done.
  if (readModel && !deps.readModel) app.addHook('onReady', async () => readModel.loaded.catch(() => {}));
  const directory = deps.directory ?? new ModelDirectory(readModel!, SqlDirectory.over(deps.store));
  const resolveToken = deps.resolveToken ?? defaultTokenResolver(tokenSecrets(config));
  const events = new EventPipeline({ db: deps.store.db, directory, resolveToken, config, log: app.log.child({ component: 'events' }) });
  app.addHook('onReady', async () => void events.start());
  app.addHook('onClose', async () => events.close());
  const audit = deps.audit ?? new AuditTrail(deps.store.db, { log: app.log.child({ component: 'audit' }) });
  if (!deps.audit) {
    app.addHook('onReady', async () => void audit.start());
    // Closing writes what is still buffered (the store closes after the app).
    app.addHook('onClose', async () => audit.close());
  }
  const indexer = auditIndexer(deps.store.db, app.log.child({ component: 'audit-index' }));
  app.addHook('onReady', async () => void indexer.start());
  app.addHook('onClose', async () => indexer.stop());
  const directoryChanges = composeDirectoryChanges(config, deps.store, deps.directoryListeners, { onThreadFailure: logThreadFailure(app.log) });
  const context: AppContext = Object.freeze({
    config,
    directory,
    headers: platformHeaders(config.headerBrand),
    resolveToken,
    events,
    platform: platformServices(config, deps.store, fileStorage, directory),
    metrics,
    directoryChanges,
    fileStorage,
    storedContent: deps.directory ? hostContentSource(deps.directory, new DownloadLinks(tokenSecrets(config), config.publicUrl)) : fileStorage,
    consoleSessions: consoleSessionsFor(config, deps.store),
    authFailures: new FailedAuthLimiter(config.limits.authFailureLimit),
    audit,
    sharing: sharingFor(config, deps.store, directory),
    management: managementServices(config, deps.store),
    scim: config.sync.scim ? scimService(config.sync.scim, deps.store, directoryChanges, config.publicUrl) : undefined,
  });

  // Before any route: the OpenAPI document collects routes as they are added.
  await installOpenApi(app, config);
  // At the root: the /api guard reads the console's session cookie.
  await app.register(fastifyCookie);

  const stats = operationsStats(deps.store);
  // With LDAP on, how its syncs go: readiness tells the age of the last good one, /metrics has gauges.
  const ldapHealth = config.sync.ldap ? syncHealthReader(sqlSyncRuns(deps.store.db), 'ldap') : undefined;
  await app.register(healthRoutes, {
    stats,
    migrations: deps.store.migrations,
    ...(deps.backgroundWorkers ? { workers: deps.backgroundWorkers } : {}),
    overload: overload.refusing,
    retryAfterSeconds: config.limits.retryAfterSeconds,
    ...(readModel ? { readModel: () => readModel.state } : {}),
    ...(ldapHealth ? { details: { ldapSync: async () => describeSyncHealth(await ldapHealth(), Date.now()) } } : {}),
  });
  addMetricsCollector(
    metrics,
    processMetricsCollector(overload),
    storeMetricsCollector(stats),
    eventMetricsCollector(events.counters, () => events.stats()),
    auditMetricsCollector(audit),
    ...(ldapHealth ? [syncMetricsCollector(ldapHealth)] : []),
    ...(deps.metricsCollectors ?? []),
  );
  await app.register(metricsRoutes, { metrics, metricsToken: config.observability.metricsToken });

  // The route layers, each registering its own modules and each given the same context: what the platform
  // calls (src/callbacks/index.ts), the management API, SCIM and the operator console.
  await app.register(callbackRoutes, { context });
  await app.register(manageApi, { context, prefix: '/api' });
  await app.register(scimRoutes, { context, prefix: '/scim/v2' });
  await app.register(consoleApp, { context, ...(deps.consoleDir === undefined ? {} : { dir: deps.consoleDir }) });
  void context;

  return app;
}

/** The read model of the store's directory, loading from now on, its load time logged. */
function startReadModel(log: FastifyBaseLogger, store: OpenDatabase): StoreModelSource {
  const source = new StoreModelSource(store, { pollMs: READ_MODEL_POLL_MS, onError: (error) => log.error({ err: error }, 'the read model could not follow the directory') });
  source.loaded.then(
    () => log.info({ loadMs: Math.round(source.loadMs ?? 0), users: source.model.users.size, files: source.model.files.size }, 'directory loaded into memory'),
    () => {},
  );
  return source;
}
