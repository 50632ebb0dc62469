import { sql, type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import type { Database } from '../../src/store/schema/schema.js';
import { serially } from '../helpers/serially.js';
import { describeEachStore } from '../helpers/stores.js';

/** Resources of one team, as an identity provider's first push leaves them (the table never analyzed). */
const RESOURCES = 3_000;

/** The plan of a lookup: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN lines, MySQL's index and its key parts. */
async function planOf(db: Kysely<Database>, dialect: DialectName, where: ReturnType<typeof sql>): Promise<string> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT id FROM scim_resources WHERE ${where}`.execute(db);
    return rows.map((row) => row.detail).join('\n');
  }
  if (dialect === 'mysql') {
    const { rows } = await sql<{ key: string | null; ref: string | null }>`EXPLAIN SELECT id FROM scim_resources WHERE ${where}`.execute(db);
    return rows.map((row) => `${row.key} ${row.ref}`).join('\n');
  }
  return serially(db, async (trx) => {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT id FROM scim_resources WHERE ${where}`.execute(trx);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describeEachStore('the lookups of a SCIM create', (store, dialect) => {
  it('find a name and an external id through the index of that key, before any statistics exist', async () => {
    const { db } = store();
    // No statistics until the plans are read, whatever the server's autovacuum does meanwhile.
    if (dialect === 'postgres') await sql`ALTER TABLE scim_resources SET (autovacuum_enabled = off)`.execute(db);
    for (let start = 0; start < RESOURCES; start += 500) {
      const rows = Array.from({ length: 500 }, (_, offset) => {
        const number = start + offset;
        return {
          kind: 'User',
          id: `u${number}`,
          team_id: 'acme',
          name_key: `person${number}@acme.example`,
          external_id: `00u${number}`,
          attributes: '{}',
          created_at: '2026-11-28T00:00:00Z',
          updated_at: '2026-11-28T00:00:00Z',
        };
      });
      await db.insertInto('scim_resources').values(rows).execute();
    }

    const byName = await planOf(db, dialect, sql`team_id = ${'acme'} AND kind = ${'User'} AND name_key = ${'person42@acme.example'}`);
    const byExternalId = await planOf(db, dialect, sql`team_id = ${'acme'} AND kind = ${'User'} AND external_id = ${'00u42'}`);
    // Each lookup reaches its rows by its own key, not by a walk of the team's resources.
    if (dialect === 'sqlite') {
      expect(byName).toMatch(/USING INDEX scim_resources_by_name \(.*name_key=\?/);
      expect(byExternalId).toMatch(/USING INDEX scim_resources_by_external_id \(external_id=\?/);
    } else if (dialect === 'mysql') {
      expect(byName).toMatch(/^scim_resources_by_name /);
      expect(byExternalId).toMatch(/^scim_resources_by_external_id /);
    } else {
      expect(byName).toMatch(/Index Cond: .*name_key = /);
      expect(byName).not.toMatch(/Filter:/);
      expect(byExternalId).toMatch(/Index Cond: .*external_id = /);
      expect(byExternalId).not.toMatch(/Filter:/);
    }
  });
});
