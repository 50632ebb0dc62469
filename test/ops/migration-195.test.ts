import { describe, expect, it } from 'vitest';
import { storeBefore } from '../helpers/store-before.js';
import { dialects } from '../helpers/stores.js';

/** Migration 195 takes the password out of the SCIM users stored before it was no longer kept. */
describe.each(dialects)('migration 195 on stored SCIM users [%s]', (dialect) => {
  it('removes the password of every stored user and leaves everything else as it was', async () => {
    const store = await storeBefore(dialect, '195-scim-password-scrub');
    try {
      const resource = (kind: string, id: string, attributes: object) => ({
        kind,
        id,
        team_id: 'acme',
        name_key: id,
        external_id: null,
        attributes: JSON.stringify(attributes),
        created_at: '2026-03-01T09:00:00Z',
        updated_at: '2026-03-01T09:00:00Z',
      });
      const withPassword = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'dan', password: 'Old-Secret-1', name: { givenName: 'Dan' }, locale: 'zh-CN' };
      const without = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'lei', displayName: 'Lei' };
      const group = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'password' };
      // More users than one page of the migration, each with a password.
      const many = Array.from({ length: 600 }, (_, index) => resource('User', `u${String(index).padStart(4, '0')}`, { userName: `u${index}`, password: `p${index}` }));
      await store.db
        .insertInto('scim_resources')
        .values([resource('User', 'dan', withPassword), resource('User', 'lei', without), resource('Group', 'g1', group), ...many])
        .execute();
      await store.migrateAll();
      const rows = await store.db.selectFrom('scim_resources').select(['kind', 'id', 'attributes', 'updated_at']).orderBy('kind').orderBy('id').execute();
      const byId = new Map(rows.map((row) => [row.id, row]));
      // The other attributes in their order, as stored.
      expect(byId.get('dan')!.attributes).toBe(JSON.stringify({ schemas: withPassword.schemas, userName: 'dan', name: { givenName: 'Dan' }, locale: 'zh-CN' }));
      expect(byId.get('lei')!.attributes).toBe(JSON.stringify(without));
      expect(byId.get('g1')!.attributes).toBe(JSON.stringify(group));
      expect(rows.filter((row) => row.kind === 'User' && 'password' in (JSON.parse(row.attributes) as object))).toEqual([]);
      expect(rows).toHaveLength(603);
      expect(new Set(rows.map((row) => row.updated_at))).toEqual(new Set(['2026-03-01T09:00:00Z']));
    } finally {
      await store.close();
    }
  });
});
