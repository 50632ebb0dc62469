import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { seedDemoIfEmpty } from './demo-data.js';
import { startEventTasks } from './events/background.js';
import type { ImportCounts } from './snapshot/import.js';
import { openDatabase, type OpenDatabase } from './store/database.js';

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
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * Load demo/snapshot.json when the store has no users. Default: on, except with NODE_ENV=production
   * (a real deployment never gets demo users). Tests pass false.
   */
  seedDemo?: boolean;
}

/** Start-up only: config -> store -> app -> listen. Everything else lives in `buildApp`. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const store = await openDatabase(config.databaseUrl);
  const tasks: BackgroundTask[] = [];
  let app: FastifyInstance;
  let seeded: ImportCounts | null = null;
  try {
    if (options.seedDemo ?? !config.production) seeded = await seedDemoIfEmpty(store);
    app = await buildApp({ config, store });
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await store.close();
    throw error;
  }
  // Reminder scheduler and notification outbox worker (stopped first on close).
  tasks.push(...startEventTasks(config, store, app.log.child({ component: 'events' })));
  const bound = app.server.address();
  const port = typeof bound === 'object' && bound ? bound.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await Promise.allSettled(tasks.map((task) => task.stop()));
      await app.close();
      await store.close();
    })());
  return { app, store, address: `http://${host}:${port}`, seeded, close };
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
