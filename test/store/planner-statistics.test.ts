import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { roleRank } from '../../src/directory/permissions.js';
import type { Role } from '../../src/directory/types.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { sqlShareLinks } from '../../src/store/sharing/share-links.js';
import { announceStatistics, refreshStatistics } from '../../src/store/sqlite/statistics.js';
import type { Database } from '../../src/store/schema/schema.js';

/** A company shaped like the bench's: most grants go to people, some to departments and the team. */
function company() {
  const departments = Array.from({ length: 20 }, (_, number) => ({ id: `d${number}`, name: `Department ${number}`, teamId: 't1', parentId: null }));
  const users = Array.from({ length: 400 }, (_, number) => ({ id: `u${number}`, name: `Person ${number}`, teamId: 't1', departmentIds: [`d${number % 20}`] }));
  const files = Array.from({ length: 1_500 }, (_, number) => ({
    id: `f${number}`,
    name: `Plan ${number}`,
    type: 'documentPro',
    creatorId: `u${number % 400}`,
    teamId: 't1',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-02T00:00:00Z',
    sharing: [
      ...[1, 2, 3, 4, 5].map((step) => ({ principal: `user:u${(number * 7 + step * 13) % 400}`, role: step === 1 ? 'editor' : 'viewer' })),
      { principal: `department:d${number % 20}`, role: 'commenter' },
      ...(number % 20 === 0 ? [{ principal: 'team:t1', role: 'viewer' }] : []),
    ],
  }));
  return { teams: [{ id: 't1', name: 'Acme' }], departments, users, files };
}

/**
 * SQLite plans from statistics only where ANALYZE wrote them; without them it takes any equality on an
 * indexed column as selective and read a file's collaborators through the index of every grant to a
 * person (a third of a million on the bench company: 0.1 s a call). Imports analyse the directory; a
 * serving process analyses what was never analysed, or changed a lot, at start and every hour, and its
 * read connection loads the statistics.
 */
describe('the SQLite planner statistics', () => {
  let work: string;
  let store: OpenDatabase;
  let reader: SQLite.Database;

  /** The collaborators of a file read through `connection`, and the plan of the statement that read them there. */
  async function collaboratorsPlan(connection: SQLite.Database): Promise<{ plan: string; grantees: string[] }> {
    const ran: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const logged = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }), log: (event) => void ran.push(event.query) });
    const grantees = (await new SqlDirectory(logged).listDirectGrantees('f42')).map(({ user, role }) => `${user.id}:${role}`);
    expect(ran).toHaveLength(1);
    const plan = connection
      .prepare(`EXPLAIN QUERY PLAN ${ran[0]!.sql}`)
      .all(...ran[0]!.parameters)
      .map((row) => (row as { detail: string }).detail)
      .join('\n');
    return { plan, grantees };
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'collab-statistics-'));
    const path = join(work, 'store.db');
    store = await openDatabase(`sqlite:${path}`);
    reader = new SQLite(path, { readonly: true });
  });
  afterAll(async () => {
    reader.close();
    await store.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('after an import, reads a file’s collaborators through its grants', async () => {
    expect((await importSnapshot(directoryChanges(store), company(), { replace: true })).ok).toBe(true);
    const { plan, grantees } = await collaboratorsPlan(reader);
    expect(plan).toMatch(/sqlite_autoindex_file_grants_1 \(file_id=/);
    expect(plan).not.toMatch(/file_grants_by_principal_rank/);
    expect(grantees.sort()).toEqual(['u307:editor', 'u320:viewer', 'u333:viewer', 'u346:viewer', 'u359:viewer']);
  });

  it('has every connection load statistics written later (another process’s ANALYZE) once they are announced', async () => {
    expect((await collaboratorsPlan(store.sqliteReader!)).plan).toMatch(/sqlite_autoindex_file_grants_1 \(file_id=/);
    // Statistics that say the opposite: a principal kind picks one grant, a file a hundred thousand.
    const other = await openDatabase(`sqlite:${join(work, 'store.db')}`);
    try {
      await other.db
        .updateTable('sqlite_stat1' as never)
        .set({ stat: '1009660 1 1 1 1' } as never)
        .where('idx' as never, '=', 'file_grants_by_principal_rank' as never)
        .execute();
      await other.db
        .updateTable('sqlite_stat1' as never)
        .set({ stat: '1009660 100000 50000 1' } as never)
        .where('idx' as never, '=', 'sqlite_autoindex_file_grants_1' as never)
        .execute();
      // Written, not announced: the read connection plans with what it loaded.
      expect((await collaboratorsPlan(store.sqliteReader!)).plan).toMatch(/sqlite_autoindex_file_grants_1 \(file_id=/);
      await other.db.transaction().execute((trx) => announceStatistics(trx));
      expect((await collaboratorsPlan(store.sqliteReader!)).plan).toMatch(/file_grants_by_principal_rank/);
      // And the true ones back, as an import writes them.
      await other.keepStatistics();
      await refreshStatistics(other.db, ['file_grants']);
      expect((await collaboratorsPlan(store.sqliteReader!)).plan).toMatch(/sqlite_autoindex_file_grants_1 \(file_id=/);
    } finally {
      await other.close();
    }
  });

  it('without statistics plans the read badly; a serving process’s pass writes them, for its read connection too', async () => {
    // A second store written row by row, as the management API or SCIM would over time: never analysed.
    const other = await openDatabase(`sqlite:${join(work, 'written.db')}`);
    try {
      const { users, files } = company();
      await upsertUsers(
        other.db,
        users.map((user) => ({ ...user, email: null, avatar: null, watermark: null })),
        { fresh: true },
      );
      const grants = files.flatMap((file) =>
        file.sharing.map((entry) => {
          const [kind, id] = entry.principal.split(':') as [string, string];
          return { file_id: file.id, principal_kind: kind, principal_id: id, role_rank: roleRank(entry.role as Role) };
        }),
      );
      for (let start = 0; start < grants.length; start += 5_000)
        await other.db
          .insertInto('file_grants')
          .values(grants.slice(start, start + 5_000))
          .execute();
      const before = await collaboratorsPlan(other.sqliteReader!);
      expect(before.plan).toMatch(/file_grants_by_principal_rank \(principal_kind=/);
      await other.keepStatistics();
      const after = await collaboratorsPlan(other.sqliteReader!);
      expect(after.plan).toMatch(/sqlite_autoindex_file_grants_1 \(file_id=/);
      expect(after.grantees.sort()).toEqual(before.grantees.sort());
      expect(after.grantees).toHaveLength(5);
    } finally {
      await other.close();
    }
  });

  it('answers whether anything lets the anonymous viewer in without reading every file or link (migration 215)', async () => {
    const ran: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const logged = new Kysely<Database>({ dialect: new SqliteDialect({ database: reader }), log: (event) => void ran.push(event.query) });
    expect(await sqlShareLinks(logged).anonymousAllowed(null, '2026-11-27T00:00:00Z')).toBe(false);
    expect(ran).toHaveLength(2);
    const plans = ran.map((query) =>
      reader
        .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
        .all(...query.parameters)
        .map((row) => (row as { detail: string }).detail)
        .join('\n'),
    );
    expect(plans[0]).toMatch(/SEARCH share_links USING INDEX share_links_anonymous/);
    expect(plans[1]).toMatch(/SEARCH files USING INDEX files_anonymous/);
    await store.db.updateTable('files').set({ anonymous_access: 'view' }).where('id', '=', 'f7').execute();
    expect(await sqlShareLinks(logged).anonymousAllowed(null, '2026-11-27T00:00:00Z')).toBe(true);
  });
});
