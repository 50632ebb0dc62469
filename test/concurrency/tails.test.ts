import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
import { auditLog } from '../../src/store/audit-log.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { createTestSchema, dialects, openTestStore, postgresUrl } from '../helpers/stores.js';
import { SEED, seeded } from './instances.js';

const WRITERS = 6;
const WRITES_EACH = 12;
const PAGE = 4;

/**
 * The audit log paged "after the last cursor" while two instances write (issue 29): entries written in a
 * transaction take the tail turn, so they become visible in id order and a reader that keeps paging from
 * its last cursor finds every one, however the writers' transactions interleave. Each writer's transaction
 * goes on for a seeded number of round trips after its insert, as a directory change's does.
 */
for (const dialect of dialects) {
  describe(`the audit log's tail never skips [${dialect}] (seed ${SEED})`, { timeout: 60_000 }, () => {
    let stores: OpenDatabase[];
    let drop = async () => {};

    beforeAll(async () => {
      if (dialect === 'sqlite') {
        const store = await openTestStore('sqlite');
        stores = [store, store];
      } else {
        const schema = await createTestSchema();
        drop = schema.drop;
        stores = [await openDatabase(postgresUrl!, { schema: schema.schema, poolSize: 5 }), await openDatabase(postgresUrl!, { schema: schema.schema, poolSize: 5 })];
      }
      await seedDirectory(stores[0]!.db);
    });
    afterAll(async () => {
      for (const store of new Set(stores)) await store.close();
      await drop();
    });

    it('pages of audit entries read while two instances write skip none', async () => {
      const random = seeded(SEED);
      const written: string[] = [];
      const write = async (writer: number, index: number) => {
        const key = `w${writer}-${index}`;
        const lingering = Math.floor(random() * 4);
        const { db } = stores[(writer + index) % 2]!;
        await db.transaction().execute(async (trx) => {
          await auditLog.append(trx, [{ at: '2026-11-26T00:00:00Z', kind: 'tail.test', actorId: null, credential: 'test', fileId: null, action: key, permissions: null, details: null }]);
          // The rest of the transaction: more statements before the commit.
          for (let step = 0; step < lingering; step += 1) await sql`SELECT 1`.execute(trx);
        });
        written.push(key);
      };
      const writers = Array.from({ length: WRITERS }, async (_, writer) => {
        for (let index = 0; index < WRITES_EACH; index += 1) await write(writer, index);
      });

      // Readers: each keeps the last cursor a page gave and pages on from it (a partial last page is read again).
      const seen = new Set<string>();
      let cursor = 0;
      const { db } = stores[0]!;
      const readAll = async () => {
        for (;;) {
          const page = await auditLog.list(db, { after: cursor, limit: PAGE, kind: 'tail.test' });
          for (const item of page.items) seen.add(item.action);
          if (page.next === null) break;
          cursor = page.next;
        }
      };
      let done = false;
      const all = Promise.all(writers).finally(() => (done = true));
      while (!done) await readAll();
      await all;
      await readAll();

      const expected = [...written].sort();
      expect(expected).toHaveLength(WRITERS * WRITES_EACH);
      expect([...seen].sort()).toEqual(expected);
    });
  });
}
