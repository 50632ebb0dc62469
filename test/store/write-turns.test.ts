import { expect, it } from 'vitest';
import { openWriteTurn } from '../../src/store/directory-writes/directory-write-store.js';
import { describeEachStore } from '../helpers/stores.js';

/**
 * The directory's write turns (openWriteTurn): turns sent at once may share a transaction (group commit),
 * yet each reads what every earlier turn wrote, and one that fails takes back only its own writes.
 */
describeEachStore('directory write turns', (store) => {
  it('turns sent at once each read the writes of the turns before them: no lost update', async () => {
    const db = store().db;
    await db.insertInto('teams').values({ id: 'counter', name: '0' }).execute();
    await Promise.all(
      Array.from({ length: 30 }, () =>
        openWriteTurn(store(), async (trx) => {
          const { name } = await trx.selectFrom('teams').select('name').where('id', '=', 'counter').executeTakeFirstOrThrow();
          await trx
            .updateTable('teams')
            .set({ name: String(Number(name) + 1) })
            .where('id', '=', 'counter')
            .execute();
          return Number(name) + 1;
        }),
      ),
    );
    const { name } = await db.selectFrom('teams').select('name').where('id', '=', 'counter').executeTakeFirstOrThrow();
    expect(name).toBe('30');
  });

  it('a turn that fails among others is refused with its own error and writes nothing; the others are kept', async () => {
    const db = store().db;
    const write = (id: string, fail = false) =>
      openWriteTurn(store(), async (trx) => {
        await trx.insertInto('teams').values({ id, name: id }).execute();
        if (fail) throw new Error(`turn ${id} failed`);
        return id;
      });
    const outcomes = await Promise.allSettled([write('turn-a'), write('turn-b', true), write('turn-c'), write('turn-a')]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 'turn-a' });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { message: 'turn turn-b failed' } });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: 'turn-c' });
    // The same key again: the database refuses it, and only that turn fails.
    expect(outcomes[3]).toMatchObject({ status: 'rejected' });
    const ids = (await db.selectFrom('teams').select('id').where('id', 'like', 'turn-%').orderBy('id').execute()).map((row) => row.id);
    expect(ids).toEqual(['turn-a', 'turn-c']);
  });
});
