import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { auditLog } from '../../src/store/audit/audit-log.js';
import { eventEffects } from '../../src/store/events/event-effects.js';
import { eventLog } from '../../src/store/events/event-log.js';
import { outbox } from '../../src/store/notify/outbox.js';
import { reminders } from '../../src/store/events/reminders.js';
import type { Db } from '../../src/store/schema/schema.js';
import type { TailPosition } from '../../src/store/statements/tail-order.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { createTestDatabase, createTestSchema, dialects, openTestStore, postgresUrl } from '../helpers/stores.js';
import { SEED, seeded } from './instances.js';

const WRITERS = 6;
const WRITES_EACH = 12;
const PAGE = 4;
const NOW = Date.parse('2026-11-26T00:00:00Z');

/** One tailed listing: how a writer adds the row `key` inside its transaction, and how a reader pages. */
interface Tail<P> {
  name: string;
  /** Inserts `key` in `trx`; `own` writes in a transaction of its own instead (the event log's append). */
  write(trx: Db, key: string): Promise<void>;
  own?: (store: OpenDatabase, key: string) => Promise<void>;
  page(db: Db, after: P | undefined): Promise<{ keys: string[]; next: P | null }>;
}

const TAILS: Array<Tail<TailPosition> | Tail<number>> = [
  {
    name: 'audit log',
    write: (trx, key) =>
      auditLog.append(trx, [{ at: '2026-11-26T00:00:00Z', kind: 'tail.test', actorId: null, credential: 'test', fileId: null, action: key, permissions: null, details: null }]),
    page: async (db: Db, after: TailPosition | undefined) => {
      const page = await auditLog.list(db, { ...(after === undefined ? {} : { after }), limit: PAGE, kind: 'tail.test' });
      return { keys: page.items.map((item) => item.action), next: page.next };
    },
  },
  {
    name: 'notifications',
    write: async (trx, key) => {
      await outbox.enqueue(trx, [{ type: 'tail.test', occurredAt: '2026-11-26T00:00:00Z', data: { key }, dedupeKey: key, eventId: null }], ['webhook'], NOW);
    },
    page: async (db: Db, after: TailPosition | undefined) => {
      const page = await outbox.list(db, { ...(after === undefined ? {} : { after }), limit: PAGE });
      return { keys: page.items.map((item) => (item.data as { key: string }).key), next: page.next };
    },
  },
  {
    name: 'reminders',
    write: (trx, key) =>
      eventEffects.applyReminderChanges(
        trx,
        [{ change: { op: 'create', fileId: 'tail-file', id: key, authorId: 'u1', content: key, remindUserIds: ['u1'], remindAtMs: NOW + 86_400_000 }, eventId: 1 }],
        NOW,
      ),
    page: async (db: Db, after: TailPosition | undefined) => {
      const page = await reminders.list(db, { ...(after === undefined ? {} : { after }), limit: PAGE });
      return { keys: page.items.map((item) => item.id), next: page.next };
    },
  },
  {
    name: 'events',
    write: async () => {},
    // The log's one way in: an append of its own, in the append turn.
    own: async (store, key) => {
      const body = JSON.stringify({ key });
      await eventLog.appendDurably(store.db, [
        {
          deliveryKey: key,
          kind: 'TailTest',
          action: null,
          fileId: null,
          userId: null,
          credential: 'test',
          senderId: null,
          outcome: 'pending',
          problem: null,
          subject: key,
          receivedMs: NOW,
          body,
        },
      ]);
    },
    page: async (db: Db, after: number | undefined) => {
      const page = await eventLog.list(db, { after: after ?? 0, limit: PAGE, kind: 'TailTest' });
      return { keys: page.items.map((item) => item.subject!), next: page.next };
    },
  },
];

/**
 * The listings that page "after the last cursor" (audit log, notifications, reminders, events), read
 * while two instances write (issue 29): a reader that keeps paging from its last cursor finds every row,
 * however the writers' transactions interleave and commit. Each writer's transaction goes on for a seeded
 * number of round trips after its insert, as an event's effects or a directory change's do.
 */
for (const dialect of dialects) {
  describe(`tails never skip [${dialect}] (seed ${SEED})`, { timeout: 120_000 }, () => {
    let stores: OpenDatabase[];
    let drop = async () => {};

    beforeAll(async () => {
      if (dialect === 'sqlite') {
        const store = await openTestStore('sqlite');
        stores = [store, store];
      } else if (dialect === 'mysql') {
        const database = await createTestDatabase();
        drop = database.drop;
        stores = [await openDatabase(database.url, { poolSize: 5 }), await openDatabase(database.url, { poolSize: 5 })];
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

    for (const tail of TAILS as Array<Tail<unknown>>) {
      it(`pages of ${tail.name} read while two instances write skip none`, async () => {
        const random = seeded(SEED);
        const written: string[] = [];
        const write = async (writer: number, index: number) => {
          const key = `w${writer}-${index}`;
          const lingering = Math.floor(random() * 4);
          const store = stores[(writer + index) % 2]!;
          if (tail.own) await tail.own(store, key);
          else {
            await store.db.transaction().execute(async (trx) => {
              await tail.write(trx, key);
              // The rest of the transaction: more statements before the commit.
              for (let step = 0; step < lingering; step += 1) await sql`SELECT 1`.execute(trx);
            });
          }
          written.push(key);
        };
        const writers = Array.from({ length: WRITERS }, async (_, writer) => {
          for (let index = 0; index < WRITES_EACH; index += 1) await write(writer, index);
        });

        // The reader keeps the last cursor a page gave and pages on from it (a partial last page is read again).
        const seen = new Set<string>();
        let cursor: unknown;
        const { db } = stores[0]!;
        const readAll = async () => {
          for (;;) {
            const page = await tail.page(db, cursor);
            for (const key of page.keys) seen.add(key);
            if (page.next === null) break;
            cursor = page.next;
          }
        };
        let done = false;
        const all = Promise.all(writers).finally(() => (done = true));
        while (!done) await readAll();
        await all;
        // Once the writers stop every row is there (PostgreSQL: once no transaction older than the last
        // insert still runs on the server, which other sessions' work may delay a little).
        const expected = [...written].sort();
        expect(expected).toHaveLength(WRITERS * WRITES_EACH);
        const deadline = Date.now() + 30_000;
        do await readAll();
        while (seen.size < expected.length && Date.now() < deadline);
        expect([...seen].sort()).toEqual(expected);
      });
    }
  });
}
