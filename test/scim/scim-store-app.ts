import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { freshStore } from '../ops/fresh-store.js';
import { scimConfig } from './scim-client.js';

/**
 * A store of the suite's own (an SQLite file on disk, a fresh PostgreSQL schema or MySQL database) with the
 * shared fixture, and an app with SCIM on for `teamId`: set up before the suite's tests, dropped after.
 */
export function scimAppOnFreshStore(dialect: DialectName, teamId: string): { app: () => FastifyInstance; store: () => OpenDatabase } {
  let store: OpenDatabase;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  beforeAll(async () => {
    const fresh = await freshStore(dialect);
    drop = fresh.drop;
    store = await fresh.open();
    await seedDirectory(store.db);
    app = await buildTestApp(store, scimConfig(teamId));
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await drop?.();
  });
  return { app: () => app, store: () => store };
}
