import { describe, expect, it } from 'vitest';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { rawSession } from '../helpers/raw-session.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from './fresh-store.js';

/**
 * `/readyz` answers 503 while the directory loads into memory, as `collab-host serve` runs it (listening
 * meanwhile), and 200 once it is in: a load balancer sends no callback to an instance that cannot answer
 * from memory yet. The load is held by another session's table lock, a device PostgreSQL and MySQL have
 * (SQLite's readers never wait for a writer; the answer does not depend on the store).
 */
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(dialects.includes(dialect))(`/readyz while the read model loads [${dialect}]`, () => {
    it('answers 503 "still loading" until the directory is in memory, then 200; the callbacks answer once it is in', async () => {
      const fresh = await freshStore(dialect);
      const store = await fresh.open();
      const other = await rawSession(dialect, fresh.url);
      let source: StoreModelSource | undefined;
      try {
        await upsertTeams(store.db, [{ id: 'acme', name: 'Acme' }]);
        await upsertUsers(store.db, [{ id: 'ann', name: 'Ann', email: null, avatar: null, teamId: 'acme', watermark: null, departmentIds: [] }]);
        // Another session holds the users table: the load waits for it.
        if (dialect === 'mysql') await other.query('LOCK TABLES users WRITE');
        else {
          await other.query('BEGIN');
          await other.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
        }
        source = new StoreModelSource(store);
        const app = await buildTestApp(store, {}, { readModel: source, backgroundWorkers: () => [{ name: 'outbox-worker', running: true }] });
        try {
          const loading = await app.inject({ method: 'GET', url: '/readyz' });
          expect(loading.statusCode).toBe(503);
          expect(loading.json()).toMatchObject({ status: 'unavailable', checks: { readModel: 'the directory is still loading into memory' } });
          expect(source.state).toBe('loading');

          await other.query(dialect === 'mysql' ? 'UNLOCK TABLES' : 'COMMIT');
          await source.loaded;
          const ready = await app.inject({ method: 'GET', url: '/readyz' });
          expect(ready.statusCode).toBe(200);
          expect(ready.json()).toMatchObject({ status: 'ready', checks: { readModel: 'ok' } });
          const me = await app.inject({ method: 'GET', url: '/users/current/info', headers: asUser('ann') });
          expect(me.statusCode).toBe(200);
          expect(me.json()).toMatchObject({ id: 'ann', name: 'Ann' });
        } finally {
          await app.close();
        }
      } finally {
        source?.close();
        await other.end();
        await store.close();
        await fresh.drop();
      }
    }, 60_000);
  });
