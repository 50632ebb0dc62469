import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { dialectSql } from '../../src/store/dialect/dialect-sql-for.js';
import { readTeamUsersByEmail } from '../../src/store/directory-writes/directory-state.js';
import { dialects, openTestStore } from '../helpers/stores.js';

// Every SCIM create looks in its team for a user to take over by e-mail, case-insensitively
// (src/sync/scim/scim-service.ts); migrations 185 and 200 index that look-up on every store.
const longLocal = 'Very.Long.Name.'.repeat(20); // 300 characters: past MySQL's indexed key of 191
const users = [
  { id: 'ann', team_id: 'acme', email: 'Ann.Lee@Example.com' },
  { id: 'ann-elsewhere', team_id: 'other', email: 'ann.lee@example.com' },
  { id: 'long-a', team_id: 'acme', email: `${longLocal}a@example.com` },
  { id: 'long-b', team_id: 'acme', email: `${longLocal}B@example.com` },
  { id: 'no-mail', team_id: 'acme', email: null },
  { id: 'ann-again', team_id: 'acme', email: 'ANN.LEE@example.COM' },
];

for (const dialect of dialects) {
  describe(`a team's users by e-mail [${dialect}]`, () => {
    let store: OpenDatabase;
    beforeAll(async () => {
      store = await openTestStore(dialect);
      await store.db
        .insertInto('users')
        .values(users.map((user) => ({ ...user, name: user.id, name_pinyin: '', name_initials: '', avatar: null, watermark: null })))
        .execute();
    });
    afterAll(async () => store?.close());

    const idsFor = async (teamId: string, email: string) => (await readTeamUsersByEmail(store.db, teamId, email)).map((user) => user.id);

    it('finds every user of the team with that e-mail, whatever its case, and no one of another team', async () => {
      expect(await idsFor('acme', 'ann.LEE@EXAMPLE.com')).toEqual(['ann', 'ann-again']);
      expect(await idsFor('other', 'Ann.Lee@example.com')).toEqual(['ann-elsewhere']);
      expect(await idsFor('acme', 'ann.lee@example.org')).toEqual([]);
    });

    it('tells apart long e-mails that differ only past their first 191 characters', async () => {
      expect(await idsFor('acme', `${longLocal}A@EXAMPLE.COM`)).toEqual(['long-a']);
      expect(await idsFor('acme', `${longLocal}b@example.com`)).toEqual(['long-b']);
      expect(await idsFor('acme', `${longLocal}@example.com`)).toEqual([]);
    });

    // MySQL indexes a generated column where the other stores index the expression (migration 200).
    if (dialect === 'mysql') {
      it('is served by the index users_team_email, not by reading the whole team', async () => {
        const condition = dialectSql(store.db).emailIs("'ann.lee@example.com'");
        const { rows } = await sql<{ key: string | null }>`EXPLAIN SELECT id FROM users WHERE team_id = 'acme' AND ${sql.raw(condition)}`.execute(store.db);
        expect(rows.map((row) => row.key)).toEqual(['users_team_email']);
      });

      it('keeps the indexed key out of SELECT *, so backups carry the same columns as on the other stores', async () => {
        const { rows } = await sql<Record<string, unknown>>`SELECT * FROM users WHERE id = 'ann'`.execute(store.db);
        expect(Object.keys(rows[0]!)).not.toContain('email_key');
      });
    }
  });
}
