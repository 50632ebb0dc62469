import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
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
  close(): Promise<void>;
}

/** Start-up only: config -> store -> app -> listen. Everything else lives in `buildApp`. */
export async function startServer(config: Config): Promise<RunningServer> {
  const store = await openDatabase(config.databaseUrl);
  const tasks: BackgroundTask[] = [];
  let app: FastifyInstance;
  try {
    app = await buildApp({ config, store });
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await store.close();
    throw error;
  }
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
  return { app, store, address: `http://${host}:${port}`, close };
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
