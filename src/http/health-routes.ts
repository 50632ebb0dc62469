import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { MigrationRunner } from '../store/schema/migration-runner.js';
import type { OperationsStats } from '../store/connection/operations-stats.js';

/** A background worker as the server reports it (the reminder scheduler, the outbox worker, …). */
export interface WorkerState {
  name: string;
  running: boolean;
}

export interface HealthOptions {
  stats: OperationsStats;
  migrations: MigrationRunner;
  /** The server's background workers; absent when the app runs none (library use, tests). */
  workers?: () => readonly WorkerState[];
  /** Whether the overload protection is refusing requests now, and why. */
  overload: () => string | undefined;
  retryAfterSeconds: number;
  /** The directory's read model: `loading` or `failed` until it can answer (absent: a host directory). */
  readModel?: () => 'loading' | 'ready' | 'failed';
  /** Facts told along with the checks that never make the answer 503 (how the directory sync is going). */
  details?: Record<string, () => Promise<string>>;
}

/** How long /readyz waits for the database before calling it unreachable. */
const CHECK_TIMEOUT_MS = 3000;
/** Migrations are read again at most this often: a newer version migrating the database under a running one shows within it. */
const MIGRATIONS_RECHECK_MS = 30_000;

const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  /** Each check: `ok`, or why it failed. */
  checks: Type.Record(Type.String(), Type.String()),
  /** What is worth knowing but does not decide readiness, e.g. `ldapSync`: the age of the last good sync. */
  details: Type.Optional(Type.Record(Type.String(), Type.String())),
});

/**
 * `GET /healthz`: the process is alive and serving (never touches the database: a restart would not fix
 * a database that is away). `GET /readyz`: ready for traffic: the database answers, every known migration
 * is applied and none is unknown (a newer version migrated the database under this one: drain it), the
 * background workers run, the event loop is not overloaded; otherwise 503 with Retry-After and the
 * reason of each failed check. `details` tell more without deciding readiness.
 */
export async function healthRoutes(app: FastifyInstance, options: HealthOptions): Promise<void> {
  let migrationsCheckedAt = Number.NEGATIVE_INFINITY;
  const checks: Record<string, () => Promise<string | undefined>> = {
    database: async () => {
      await withTimeout(options.stats.ping(), CHECK_TIMEOUT_MS);
      return undefined;
    },
    migrations: async () => {
      // Current a moment ago is current now (status reads the schema: not for every probe).
      if (Date.now() - migrationsCheckedAt < MIGRATIONS_RECHECK_MS) return undefined;
      const status = await withTimeout(options.migrations.status(), CHECK_TIMEOUT_MS);
      if (status.unknown.length > 0) return `the database was migrated by a newer version (${status.unknown.join(', ')})`;
      if (status.pending.length > 0) return `${status.pending.length} migration(s) pending (${status.pending.join(', ')}): run collab-host migrate`;
      migrationsCheckedAt = Date.now();
      return undefined;
    },
    workers: async () => {
      if (!options.workers) return undefined;
      const workers = options.workers();
      if (workers.length === 0) return 'the background workers have not started';
      const stopped = workers.filter((worker) => !worker.running).map((worker) => worker.name);
      return stopped.length > 0 ? `stopped: ${stopped.join(', ')}` : undefined;
    },
    load: async () => options.overload(),
    readModel: async () => {
      const state = options.readModel?.() ?? 'ready';
      return state === 'ready' ? undefined : state === 'loading' ? 'the directory is still loading into memory' : 'the directory failed to load into memory (see the log)';
    },
  };

  app.get('/healthz', { schema: { hide: true, response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', { schema: { hide: true, response: { 200: ReadinessSchema, 503: ReadinessSchema } } }, async (request, reply) => {
    const failed = (name: string) => (error: unknown) => {
      request.log.warn({ err: error, check: name }, 'readiness check failed');
      return describe(error);
    };
    const results = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await check().catch(failed(name))] as const));
    const details = await Promise.all(
      Object.entries(options.details ?? {}).map(async ([name, read]) => [name, await withTimeout(read(), CHECK_TIMEOUT_MS).catch(failed(name))] as const),
    );
    const ready = results.every(([, failure]) => failure === undefined);
    if (!ready) reply.status(503).header('retry-after', String(options.retryAfterSeconds));
    return {
      status: ready ? ('ready' as const) : ('unavailable' as const),
      checks: Object.fromEntries(results.map(([name, failure]) => [name, failure ?? 'ok'])),
      ...(details.length > 0 ? { details: Object.fromEntries(details) } : {}),
    };
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The reason without internals (no address, no query): the error's code, or that it timed out; the log has the rest. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return `unreachable (${code})`;
  if (error instanceof Error && error.message.startsWith('no answer within')) return `unreachable (${error.message})`;
  return 'unreachable';
}
