import type { Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLog } from '../../src/store/audit/audit-log.js';
import { auditIndex } from '../../src/store/audit/audit-index.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import type { Database, Db } from '../../src/store/schema/schema.js';
import type { TailPosition } from '../../src/store/statements/tail-order.js';
import { createTestSchema, describeEachStore, postgresUrl } from '../helpers/stores.js';
import { accessDecision as decision } from './access-decision.js';

/** Every entry of a listing, page by page (`limit` a page), as their actions. */
async function listAll(db: Db, filter: { fileId?: string; actorId?: string; since?: string }, limit = 2): Promise<string[]> {
  const actions: string[] = [];
  let after: TailPosition | undefined;
  do {
    const page = await auditLog.list(db, { ...filter, ...(after === undefined ? {} : { after }), limit });
    actions.push(...page.items.map((item) => item.action));
    after = page.next ?? undefined;
  } while (after !== undefined);
  return actions;
}

/**
 * Indexes `count` more rows, pass after pass: on PostgreSQL a pass takes only rows of transactions older
 * than every one still running on the server (other tests' included), so it may take none for a moment.
 */
async function indexRows(db: Kysely<Database>, count: number): Promise<void> {
  let left = count;
  for (let attempt = 0; left > 0; attempt += 1) {
    if (attempt > 500) throw new Error(`${left} rows left unindexed`);
    left -= (await auditIndex.indexPending(db, left)).rows;
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describeEachStore('audit log by file and actor, indexed in batches', (store, dialect) => {
  const db = () => store().db;
  beforeEach(async () => {
    await db().deleteFrom('audit_log').execute();
    await db().deleteFrom('audit_file_ids').execute();
    await db().deleteFrom('audit_actor_ids').execute();
    await auditIndex.restart(db());
  });

  it('lists by file and by actor the same rows in the same order before, between and after indexing passes', async () => {
    const first = [
      decision('2026-03-01T09:00:00Z', 'zhang', 'plan', 'a1'),
      decision('2026-03-01T09:00:01Z', 'lilei', 'plan', 'a2'),
      decision('2026-03-01T09:00:02Z', 'zhang', 'secret', 'a3'),
      decision('2026-03-01T09:00:03Z', 'zhang', 'plan', 'a4'),
    ];
    await auditLog.append(db(), first);
    const before = { plan: await listAll(db(), { fileId: 'plan' }), zhang: await listAll(db(), { actorId: 'zhang' }) };
    expect(before).toEqual({ plan: ['a1', 'a2', 'a4'], zhang: ['a1', 'a3', 'a4'] });

    // A pass of two rows: the listing reads two rows through the side tables and the rest by the scan.
    if (dialect === 'postgres') await indexRows(db(), 2);
    else expect(await auditIndex.indexPending(db(), 2)).toEqual({ rows: 2, more: true });
    expect(await listAll(db(), { fileId: 'plan' })).toEqual(before.plan);
    expect(await listAll(db(), { actorId: 'zhang' })).toEqual(before.zhang);
    expect(await listAll(db(), { fileId: 'plan', actorId: 'zhang' })).toEqual(['a1', 'a4']);

    await auditLog.append(db(), [decision('2026-03-01T09:00:04Z', 'zhang', 'plan', 'a5')]);
    await indexRows(db(), 3);
    expect(await auditIndex.indexPending(db(), 100)).toEqual({ rows: 0, more: false });
    expect(await listAll(db(), { fileId: 'plan' })).toEqual(['a1', 'a2', 'a4', 'a5']);
    expect(await listAll(db(), { actorId: 'zhang' }, 1)).toEqual(['a1', 'a3', 'a4', 'a5']);
    expect(await listAll(db(), { actorId: 'lilei' })).toEqual(['a2']);
    expect(await listAll(db(), { fileId: 'plan', since: '2026-03-01T09:00:03Z' })).toEqual(['a4', 'a5']);
    // Every row was indexed: the pairs are in the side tables.
    expect(await db().selectFrom('audit_file_ids').select('id').execute()).toHaveLength(5);
  });

  it('keeps listing by file and actor across a retention prune, before and after indexing', async () => {
    await auditLog.append(db(), [
      decision('2026-01-01T00:00:00Z', 'zhang', 'plan', 'old1'),
      decision('2026-01-01T00:00:01Z', 'zhang', 'plan', 'old2'),
      decision('2026-03-01T00:00:00Z', 'zhang', 'plan', 'new1'),
    ]);
    await indexRows(db(), 2);
    await auditLog.append(db(), [decision('2026-01-01T00:00:02Z', 'zhang', 'plan', 'old3'), decision('2026-03-01T00:00:01Z', 'zhang', 'plan', 'new2')]);
    // The mark stands on old2: retention keeps that one row (the index's mark) and removes the other old ones.
    expect(await auditLog.countBefore(db(), '2026-02-01T00:00:00Z')).toBe(2);
    expect(await auditLog.pruneBefore(db(), '2026-02-01T00:00:00Z', 100)).toBe(2);
    expect(await listAll(db(), { fileId: 'plan' })).toEqual(['old2', 'new1', 'new2']);
    expect(await db().selectFrom('audit_file_ids').select('id').execute()).toHaveLength(1);
    await indexRows(db(), 2);
    expect(await listAll(db(), { fileId: 'plan' })).toEqual(['old2', 'new1', 'new2']);
    expect(await listAll(db(), { actorId: 'zhang' })).toEqual(['old2', 'new1', 'new2']);
    // Once a newer row is indexed, the old mark's row goes too.
    expect(await auditLog.pruneBefore(db(), '2026-02-01T00:00:00Z', 100)).toBe(1);
    expect(await listAll(db(), { fileId: 'plan' })).toEqual(['new1', 'new2']);
    expect(await db().selectFrom('audit_actor_ids').select('id').execute()).toHaveLength(2);
  });

  it('lists the same after indexing starts over (a restore), the pairs already there skipped', async () => {
    await auditLog.append(db(), [decision('2026-03-01T09:00:00Z', 'zhang', 'plan', 'a1'), decision('2026-03-01T09:00:01Z', 'lilei', 'plan', 'a2')]);
    await indexRows(db(), 2);
    await auditIndex.restart(db());
    expect(await listAll(db(), { fileId: 'plan' })).toEqual(['a1', 'a2']);
    await indexRows(db(), 2);
    expect(await listAll(db(), { fileId: 'plan' })).toEqual(['a1', 'a2']);
    expect(await db().selectFrom('audit_file_ids').select('id').execute()).toHaveLength(2);
  });
});

describe.skipIf(postgresUrl === undefined)('audit log indexed by two PostgreSQL instances', () => {
  let stores: OpenDatabase[];
  let drop = async () => {};
  beforeAll(async () => {
    const schema = await createTestSchema();
    drop = schema.drop;
    stores = [await openDatabase(postgresUrl!, { schema: schema.schema, poolSize: 4 }), await openDatabase(postgresUrl!, { schema: schema.schema, poolSize: 4 })];
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await drop();
  });

  it('lists every row by file and actor while both write and index side by side', { timeout: 180_000 }, async () => {
    const [one, two] = stores as [OpenDatabase, OpenDatabase];
    for (let round = 0; round < 20; round += 1) {
      const batch = (prefix: string) => Array.from({ length: 5 }, (_, index) => decision('2026-03-01T09:00:00Z', `u${index % 2}`, `f${index % 3}`, `${prefix}${round}-${index}`));
      const a = batch('a');
      const b = batch('b');
      // Writes of both instances and passes of both indexers interleave.
      await Promise.all([auditLog.append(one.db, a), auditLog.append(two.db, b), auditIndex.indexPending(one.db, 7), auditIndex.indexPending(two.db, 7)]);
    }
    // Then until the mark stands on the last row (passes of both may have written pairs past it). A pass takes
    // only rows of transactions older than every transaction still running in the cluster: while another test
    // file holds one open (an export's snapshot), the mark waits for it, as it would in production.
    const last = Number(
      (
        await one.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirstOrThrow()
      ).id,
    );
    const deadline = Date.now() + 120_000;
    while ((await auditIndex.mark(one.db)) !== last) {
      if (Date.now() > deadline) throw new Error(`the mark never reached the last row (${last}) within 120 s: it stands at ${await auditIndex.mark(one.db)}`);
      await auditIndex.indexPending(one.db, 1000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const all = (await listAll(one.db, {}, 1000)).sort();
    expect(all).toHaveLength(200);
    for (const fileId of ['f0', 'f1', 'f2']) {
      const expected = (await one.db.selectFrom('audit_log').select('action').where('file_id', '=', fileId).execute()).map((row) => row.action).sort();
      expect((await listAll(one.db, { fileId }, 7)).sort()).toEqual(expected);
      expect((await listAll(two.db, { fileId }, 7)).sort()).toEqual(expected);
    }
    for (const actorId of ['u0', 'u1']) {
      const expected = (await one.db.selectFrom('audit_log').select('action').where('actor_id', '=', actorId).execute()).map((row) => row.action).sort();
      expect((await listAll(two.db, { actorId }, 9)).sort()).toEqual(expected);
    }
    // Each row indexed once, whichever instance did it.
    expect(await one.db.selectFrom('audit_file_ids').select('id').execute()).toHaveLength(200);
  });
});
