import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { pinyinKeys } from '../../src/directory/search-keys.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { openTestStore } from '../helpers/stores.js';

const SURNAMES = [...'王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈'];
const GIVEN = [...'伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超兰霞平刚桂乐行重长朝和都会单曾仇'];

/**
 * A company large enough that its pinyin keys are computed in a thread while its records are checked
 * (name-keys-ahead.ts; 20,000 distinct Chinese names and up): what is stored is what the keys of each
 * name are, whichever thread computed them. The keys are computed before any store is written, so one
 * store is enough here.
 */
describe('an import of a large company', () => {
  let store: OpenDatabase;
  beforeAll(async () => {
    store = await openTestStore('sqlite');
  });
  afterAll(async () => {
    await store.close();
  });

  it('stores the pinyin keys of every name', async () => {
    const users = Array.from({ length: 21_000 }, (_, number) => ({
      id: `u${number}`,
      name: `${SURNAMES[number % SURNAMES.length]!}${GIVEN[Math.floor(number / SURNAMES.length) % GIVEN.length]!}${GIVEN[Math.floor(number / (SURNAMES.length * GIVEN.length)) % GIVEN.length]!}`,
      teamId: 't1',
    }));
    expect(new Set(users.map((user) => user.name)).size).toBe(users.length);
    const snapshot = { teams: [{ id: 't1', name: '总部' }], departments: [{ id: 'd1', name: '重庆银行', teamId: 't1', parentId: null }], users };
    expect((await importSnapshot(directoryChanges(store), snapshot, { replace: true })).ok).toBe(true);

    const rows = await store.db.selectFrom('users').select(['id', 'name', 'name_pinyin', 'name_initials']).execute();
    expect(rows).toHaveLength(users.length);
    const wrong = rows.filter((row) => {
      const keys = pinyinKeys(row.name);
      return row.name_pinyin !== keys.pinyin || row.name_initials !== keys.initials;
    });
    expect(wrong).toEqual([]);
    expect(rows.find((row) => row.id === 'u2')).toEqual({ id: 'u2', name: '张伟伟', name_pinyin: 'zhangweiwei', name_initials: 'zww' });
    expect(rows.find((row) => row.id === 'u20081')).toEqual({
      id: 'u20081',
      name: '曾涛洋',
      name_pinyin: pinyinKeys('曾涛洋').pinyin,
      name_initials: pinyinKeys('曾涛洋').initials,
    });
    const department = await store.db.selectFrom('departments').select(['name_pinyin']).executeTakeFirstOrThrow();
    expect(department.name_pinyin).toBe('chongqingyinhang');
  });
});
