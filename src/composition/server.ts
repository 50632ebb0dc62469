import { createServer } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from '../config/config.js';
import { seedDemoIfEmpty } from './demo-data.js';
import { composeDirectoryChanges, logThreadFailure } from './directory-writes.js';
import { startEventTasks } from '../events/background.js';
import type { ImportCounts } from '../snapshot/import.js';
import { openDatabase, type OpenDatabase } from '../store/connection/database.js';
import { serveLockFor } from '../store/connection/serve-lock.js';
import { seatTaskWorker } from './platform-wiring.js';
import { startSyncTasks } from '../sync/ldap/ldap-sync-task.js';
import { ldapSyncDeps } from '../sync/sync-deps.js';
import { retentionMetricsCollector } from '../http/event-metrics.js';
import { Pruner, retentionTask } from '../retention/retention.js';
import { compactHeap, type HeapCompaction } from './compact-heap.js';
import { statisticsTask } from './statistics-task.js';
import { READ_MODEL_POLL_MS, StoreModelSource } from '../store/change-feed/read-model/store-model-source.js';

/** A background task that lives as long as the server (the reminder scheduler, the outbox worker, …). */
export interface BackgroundTask {
  readonly name: string;
  stop(): Promise<void>;
}

export interface RunningServer {
  app: FastifyInstance;
  store: OpenDatabase;
  /** The address the server listens on, e.g. `http://127.0.0.1:3000`. */
  address: string;
  /** What the demo import loaded on this start; null when the store already had users (or seeding was off). */
  seeded: ImportCounts | null;
  /** The directory loaded into memory (the read model): how long it took and what it holds. */
  directoryLoad: { ms: number; users: number; files: number };
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * Load demo/snapshot.json when the store has no users. Default: on, except with NODE_ENV=production
   * (a real deployment never gets demo users). Tests pass false.
   */
  seedDemo?: boolean;
}

/**
 * Start-up only: config -> store (migrated unless MIGRATE_ON_START=false) -> app -> listen -> workers.
 * Everything else lives in `buildApp`. A database that cannot be reached fails the start with a message
 * naming it; one that goes away later only makes /readyz and the requests that need it answer 503.
 */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  // A port in use fails the start before the store is opened and migrated (the listen below still checks).
  await assertPortFree(config).catch((error: unknown) => {
    throw startFailure(error, config);
  });
  let app: FastifyInstance | undefined;
  const releaseServeLock = serveLockFor(config.databaseUrl);
  const store = await openDatabase(config.databaseUrl, {
    poolSize: config.database.poolSize,
    migrate: config.database.migrateOnStart,
    onConnectionError: (error) => app?.log.warn({ err: error }, 'database connection lost; the pool reconnects when next needed'),
  }).catch((error: unknown) => {
    releaseServeLock();
    throw error;
  });
  const tasks: BackgroundTask[] = [];
  const pruner = new Pruner(store.db, config.retention);
  let stopping = false;
  let seeded: ImportCounts | null = null;
  let readModel: StoreModelSource | undefined;
  let compaction: HeapCompaction | undefined;
  let threadFailure: unknown;
  let indexesOnMainThread = false;
  try {
    // MIGRATE_ON_START=false: migrations are `collab-host migrate`'s job, which must have run first.
    const { pending } = config.database.migrateOnStart ? { pending: [] } : await store.migrations.status();
    if (pending.length > 0) {
      throw new Error(`the database has ${pending.length} pending migration(s) (${pending.join(', ')}): run collab-host migrate first (MIGRATE_ON_START=false)`);
    }
    if (options.seedDemo ?? !config.production) seeded = await seedDemoIfEmpty(store);
    // Before the first request: SQLite plans from statistics only where they were written (docs/scaling.md).
    // Best effort: another process holding the database (an import) only delays them to the hourly pass.
    const statisticsFailure = await store.keepStatistics().then(
      () => undefined,
      (error: unknown) => error,
    );
    readModel = new StoreModelSource(store, {
      pollMs: READ_MODEL_POLL_MS,
      onError: (error) => app?.log.error({ err: error, component: 'read-model' }, 'the read model could not follow the directory'),
      // Before the app is built (the first load), said once it is.
      onThreadFailure: (error) => {
        indexesOnMainThread = true;
        if (app) warnThreadFailure(app.log, error);
        else threadFailure = error;
      },
      // The garbage of a whole load goes back to the system once, not whenever V8 gets to it (docs/scaling.md).
      afterWholeLoad: () => {
        // The name indexes built on this thread left their garbage here: given back before the copy.
        compaction = compactHeap({ garbageFirst: indexesOnMainThread });
        indexesOnMainThread = false;
        // The first is on the "directory loaded" line below; a reload of everything (a bulk import) gets its own.
        if (readModel?.state === 'ready') app?.log.info({ component: 'read-model', ...compaction }, 'heap compacted after a reload of the whole directory');
      },
    });
    app = await buildApp({
      config,
      store,
      readModel,
      backgroundWorkers: () => tasks.map((task) => ({ name: task.name, running: !stopping })),
      metricsCollectors: [retentionMetricsCollector(() => pruner.removedTotal)],
    });
    await app.listen({ port: config.port, host: config.host });
    // Listening meanwhile: /readyz answers 503 (readModel) until the directory is in memory.
    await readModel.loaded;
    if (threadFailure !== undefined) warnThreadFailure(app.log, threadFailure);
    if (statisticsFailure !== undefined)
      app.log.warn({ err: statisticsFailure, component: 'statistics' }, 'the planner statistics were not brought up to date at start; the hourly pass tries again');
    const { model } = readModel;
    app.log.info(
      { component: 'read-model', loadMs: Math.round(readModel.loadMs ?? 0), users: model.users.size, files: model.files.size, compaction },
      'directory loaded into memory',
    );
  } catch (error) {
    await readModel?.close();
    // Whatever started must stop, or its timers keep a failed start alive (the event processor polls a closed store).
    await app?.close().catch(() => undefined);
    await store.close();
    releaseServeLock();
    throw startFailure(error, config);
  }
  // Reminder scheduler and notification outbox worker (stopped first on close).
  tasks.push(...startEventTasks(config, store, app.log.child({ component: 'events' })));
  // Seat (de)activations queued by directory changes, sent while PLATFORM_API_URL is set.
  const seats = seatTaskWorker(config, store, { log: app.log.child({ component: 'seats' }) });
  if (seats) tasks.push(seats.start());
  // LDAP/AD sync every LDAP_SYNC_INTERVAL, when set.
  tasks.push(
    ...startSyncTasks(
      config,
      ldapSyncDeps(config, store, composeDirectoryChanges(config, store, [], { onThreadFailure: logThreadFailure(app.log) })),
      app.log.child({ component: 'sync' }),
    ),
  );
  // The planner's statistics every hour (SQLite; its first tick, right away, finds what the pass above left).
  tasks.push(statisticsTask(store, app.log.child({ component: 'statistics' })).start());
  // Pruning of old events, notifications, activity and presence every RETENTION_INTERVAL (0: off).
  if (config.retention.intervalMs > 0) {
    tasks.push(retentionTask(pruner, config.retention.intervalMs, app.log.child({ component: 'retention' })).start());
  }
  const bound = app.server.address();
  const port = typeof bound === 'object' && bound ? bound.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  let closing: Promise<void> | undefined;
  const running = app;
  const close = () =>
    (closing ??= (async () => {
      stopping = true;
      await Promise.allSettled(tasks.map((task) => task.stop()));
      await running.close();
      await store.close();
      releaseServeLock();
    })());
  const { model } = readModel!;
  const directoryLoad = { ms: Math.round(readModel!.loadMs ?? 0), users: model.users.size, files: model.files.size };
  return { app: running, store, address: `http://${host}:${port}`, seeded, directoryLoad, close };
}

/** Binds the configured address once and lets it go; port 0 (any free port) needs no check. */
async function assertPortFree(config: Config): Promise<void> {
  if (config.port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port: config.port, host: config.host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Listen errors as one line a person can act on; anything else as it was. */
function startFailure(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE') return new StartError(`cannot listen on ${where}: the port is in use (another collab-host?); stop it or set PORT`);
  if (code === 'EACCES') return new StartError(`cannot listen on ${where}: permission denied; choose a PORT above 1023`);
  if (code === 'EADDRNOTAVAIL') return new StartError(`cannot listen on ${where}: this machine has no such address; check HOST`);
  return error;
}

/** A start that failed for a reason the operator can fix; the message is the whole story (no stack). */
export class StartError extends Error {
  override name = 'StartError';
}

/** Closes the server on SIGINT/SIGTERM: stop taking requests, finish the ones in flight, close the store. */
export function closeOnSignals(server: RunningServer, log: (message: string) => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

function warnThreadFailure(log: FastifyBaseLogger, error: unknown): void {
  log.warn({ err: error, component: 'read-model' }, 'the name indexes were built on the main thread (slower start): their own thread failed');
}
