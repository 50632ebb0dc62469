import { expect, it } from 'vitest';
import type { WorkerState } from '../../src/http/health-routes.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { freshStore, markMigratedByNewerVersion } from './fresh-store.js';

describeEachStore('/healthz and /readyz', (store, dialect) => {
  let workers: WorkerState[] = [];

  it('/healthz answers alive; /readyz answers ready with every check ok', async () => {
    workers = [
      { name: 'reminder-scheduler', running: true },
      { name: 'outbox-worker', running: true },
    ];
    const app = await buildTestApp(store(), {}, { backgroundWorkers: () => workers });
    try {
      const alive = await app.inject({ method: 'GET', url: '/healthz' });
      expect(alive.statusCode).toBe(200);
      expect(alive.json()).toEqual({ status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', workers: 'ok', load: 'ok', readModel: 'ok' } });

      workers = [workers[0]!, { name: 'outbox-worker', running: false }];
      const stopped = await app.inject({ method: 'GET', url: '/readyz' });
      expect(stopped.statusCode).toBe(503);
      expect(stopped.headers['retry-after']).toBe('10');
      expect(stopped.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', migrations: 'ok', workers: 'stopped: outbox-worker', load: 'ok', readModel: 'ok' } });

      workers = [];
      expect((await app.inject({ method: 'GET', url: '/readyz' })).json().checks.workers).toBe('the background workers have not started');
    } finally {
      await app.close();
    }
  });

  it('/readyz is 503 once a newer version has migrated the database under this one', async () => {
    const fresh = await freshStore(dialect);
    const migrated = await fresh.open();
    const app = await buildTestApp(migrated);
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await markMigratedByNewerVersion(migrated);
      // A fresh app: the running one re-reads migrations at most every 30 s.
      const next = await buildTestApp(migrated);
      const refused = await next.inject({ method: 'GET', url: '/readyz' });
      await next.close();
      expect(refused.statusCode).toBe(503);
      expect(refused.json().checks).toEqual({
        database: 'ok',
        migrations: 'the database was migrated by a newer version (099-from-a-newer-version)',
        workers: 'ok',
        load: 'ok',
        readModel: 'ok',
      });
    } finally {
      await app.close();
      await migrated.close();
      await fresh.drop();
    }
  });
});
