import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeDirectoryChanges } from '../../src/composition/directory-writes.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { commandDatabase, dialects } from '../helpers/stores.js';
import { scimConfig, USER_SCHEMA } from '../scim/scim-client.js';
import { ADMIN_API_KEY, api, scimRequest, SCIM_TEAM, SEED, seeded, shuffled } from './instances.js';

const IMPORTED_USERS = 300;
const IMPORTED_FILES = 60;

/** A snapshot of a new team with its people and files (each shared with its creator's team and a colleague), and one changed person of the fixture. */
function snapshot() {
  const users = Array.from({ length: IMPORTED_USERS }, (_, index) => ({ id: `imp${String(index).padStart(3, '0')}`, name: `Imported ${index}`, teamId: 'imported' }));
  return {
    teams: [{ id: 'imported', name: 'Imported Co' }],
    users: [...users, { id: 'carol', name: 'Carol (imported)', teamId: 'acme' }],
    files: Array.from({ length: IMPORTED_FILES }, (_, index) => ({
      id: `impfile${index}`,
      name: `Imported file ${index}`,
      type: 'documentPro',
      creatorId: users[index]!.id,
      teamId: 'imported',
      createdAt: '2026-11-26T00:00:00Z',
      updatedAt: '2026-11-26T00:00:00Z',
      sharing: [
        { principal: 'team:imported', role: 'viewer' },
        { principal: `user:${users[index + 1]!.id}`, role: 'editor' },
      ],
    })),
  };
}

/**
 * `collab-host import` (its own process: its own connection to the store, SQLite file or PostgreSQL) while
 * an instance serves the management API and SCIM and both write (issue 29): the import is one write in the
 * directory's write turn, so a reader sees none of it or all of it, every write acknowledged on either
 * side is in the stored state afterwards, and a person both wrote ends as one of the two wrote it.
 */
for (const dialect of dialects) {
  describe(`an import while the API writes [${dialect}] (seed ${SEED})`, { timeout: 120_000 }, () => {
    let dir: string;
    let serving: OpenDatabase;
    let importing: OpenDatabase;
    let app: FastifyInstance;
    let drop = async () => {};
    const overrides = { ...scimConfig(SCIM_TEAM), adminApiKey: ADMIN_API_KEY };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'import-while-writing-'));
      const database = await commandDatabase(dialect, dir, (store) => seedDirectory(store.db));
      drop = database.drop;
      serving = await database.open();
      importing = await database.open();
      app = await buildTestApp(serving, overrides);
    });
    afterAll(async () => {
      await app?.close();
      await serving?.close();
      await importing?.close();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('readers see none or all of the import; every acknowledged write on either side holds', async () => {
      const random = seeded(SEED);
      const importer = composeDirectoryChanges(makeTestConfig(overrides), importing);
      // Readers on the serving side count the imported people as the import runs: 0 or all, never part.
      const counts = new Set<number>();
      let importing_ = true;
      const reader = (async () => {
        while (importing_) {
          const row = await serving.db
            .selectFrom('users')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('team_id', '=', 'imported')
            .executeTakeFirstOrThrow();
          counts.add(Number(row.n));
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();

      const apiUsers = Array.from({ length: 12 }, (_, index) => `api${index}`);
      const scimUsers = Array.from({ length: 6 }, (_, index) => `scim.${index}`);
      const grants = ['zhang', 'lilei', 'hanmeimei', 'wang', 'alice', 'bob'];
      const writes: Array<() => Promise<{ what: string; statusCode: number; body: string }>> = [
        ...apiUsers.map((id) => async () => {
          const answer = await api(app, { method: 'PUT', url: `/api/users/${id}`, payload: { name: `API ${id}`, teamId: 'acme' } });
          return { what: `user ${id}`, statusCode: answer.statusCode, body: answer.body };
        }),
        ...grants.map((id) => async () => {
          const answer = await api(app, { method: 'PUT', url: `/api/files/secret/grants/user:${id}`, payload: { role: 'editor' } });
          return { what: `grant ${id}`, statusCode: answer.statusCode, body: answer.body };
        }),
        ...scimUsers.map((userName) => async () => {
          const answer = await scimRequest(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName, displayName: userName, active: true });
          return { what: `scim ${userName}`, statusCode: answer.statusCode, body: answer.body };
        }),
        async () => {
          const answer = await api(app, { method: 'PUT', url: '/api/users/carol', payload: { name: 'Carol (API)', teamId: 'acme' } });
          return { what: 'carol', statusCode: answer.statusCode, body: answer.body };
        },
      ];
      const imported = importSnapshot(importer, snapshot());
      const answers = await Promise.all(shuffled(writes, random).map((write) => write()));
      const result = await imported;
      importing_ = false;
      await reader;

      expect(result.ok, JSON.stringify(result)).toBe(true);
      for (const answer of answers) expect([200, 201], `${answer.what}: ${answer.body}`).toContain(answer.statusCode);
      expect(
        [...counts].filter((count) => count !== 0 && count !== IMPORTED_USERS),
        'partial imports seen',
      ).toEqual([]);

      // The stored state: the whole import, and every acknowledged write.
      const count = async (table: 'users' | 'files', teamId: string) =>
        Number(
          (
            await serving.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('team_id', '=', teamId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await count('users', 'imported')).toBe(IMPORTED_USERS);
      expect(await count('files', 'imported')).toBe(IMPORTED_FILES);
      const file = await api(app, { method: 'GET', url: '/api/files/impfile7' });
      expect((file.json().sharing as Array<{ principal: string }>).map((grant) => grant.principal).sort()).toEqual(['team:imported', 'user:imp008']);
      for (const id of apiUsers) expect((await api(app, { method: 'GET', url: `/api/users/${id}` })).json()).toMatchObject({ name: `API ${id}` });
      const sharing = (await api(app, { method: 'GET', url: '/api/files/secret' })).json().sharing as Array<{ principal: string; role: string }>;
      for (const id of grants) expect(sharing).toContainEqual({ principal: `user:${id}`, role: 'editor' });
      const listed = await scimRequest(app, 'GET', '/Users?count=200');
      const userNames = (listed.json().Resources as Array<{ userName: string }>).map((user) => user.userName);
      for (const userName of scimUsers) expect(userNames).toContain(userName);
      // Carol was written by both: she is as one of them wrote her, whole.
      expect(['Carol (imported)', 'Carol (API)']).toContain((await api(app, { method: 'GET', url: '/api/users/carol' })).json().name);
    });
  });
}
