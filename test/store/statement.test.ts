import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { IdListStatement } from '../../src/store/statements/id-list-statement.js';
import { Statement } from '../../src/store/statements/statement.js';
import { openDatabase } from '../../src/store/connection/database.js';
import { createTestSchema, describeEachStore, postgresUrl } from '../helpers/stores.js';

describeEachStore('Statement', (store) => {
  it('binds numbered placeholders, a repeated one included, on either dialect', async () => {
    const statement = new Statement('SELECT $2 AS first, $1 AS second, $2 AS again');
    const [row] = await statement.run<{ first: string; second: string; again: string }>(store().db, ['one', 'two']);
    expect(row).toEqual({ first: 'two', second: 'one', again: 'two' });
  });

  it('runs a list statement for lists of any length, the same length twice included', async () => {
    const teams = Array.from({ length: 40 }, (_, index) => ({ id: `list-${String(index).padStart(2, '0')}`, name: `Team ${index}` }));
    await store().db.insertInto('teams').values(teams).execute();
    const statement = new IdListStatement('SELECT id FROM teams WHERE id IN ($ids) ORDER BY id');
    const ids = async (asked: string[]) => (await statement.run<{ id: string }>(store().db, asked)).map((row) => row.id);
    expect(await ids([])).toEqual([]);
    expect(await ids(['list-03'])).toEqual(['list-03']);
    expect(await ids(['list-05'])).toEqual(['list-05']);
    expect(await ids(['list-07', 'nobody', 'list-01'])).toEqual(['list-01', 'list-07']);
    expect(await ids([...teams.map((team) => team.id), 'nobody'])).toEqual(teams.map((team) => team.id));
    await store().db.deleteFrom('teams').where('id', 'like', 'list-%').execute();
  });

  it('reads BIGINT counts as numbers', async () => {
    const [row] = await new Statement('SELECT COUNT(*) AS n FROM users').run<{ n: unknown }>(store().db, []);
    expect(row?.n).toBe(0);
  });
});

// PostgreSQL only: about the `pg` driver's process-wide type parsers, which the MySQL driver (mysql2) does not share.
describe.skipIf(!postgresUrl)("the store's pg settings", () => {
  it('leave the pg defaults of other clients in the process alone', async () => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: unknown }>('SELECT 7::bigint AS n');
      expect(rows[0]?.n).toBe('7');
    } finally {
      await client.end();
    }
  });
});

// PostgreSQL only: JIT and search_path are PostgreSQL settings; a MySQL connection names its database in the URL
// and has no JIT (what its connections must get right, utf8mb4 text and numbers as numbers, is in test/store/mysql-schema.test.ts).
describe.skipIf(!postgresUrl)("the store's PostgreSQL connections", () => {
  it('run without JIT and in their schema from the first query on, every connection of the pool', async () => {
    const { schema, drop } = await createTestSchema();
    const store = await openDatabase(postgresUrl as string, { schema, poolSize: 4 });
    try {
      // Four at once: four fresh connections of the pool, each asked by its first query.
      const settings = await Promise.all(
        Array.from({ length: 4 }, () => new Statement('SELECT current_setting($1) AS jit, current_schema() AS schema').run<{ jit: string; schema: string }>(store.db, ['jit'])),
      );
      expect(settings.map(([row]) => row)).toEqual(Array.from({ length: 4 }, () => ({ jit: 'off', schema })));
    } finally {
      await store.close();
      await drop();
    }
  });
});
