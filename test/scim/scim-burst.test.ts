import { describe, expect, it } from 'vitest';
import { readUsers } from '../../src/store/directory-writes/directory-state.js';
import { dialects } from '../helpers/stores.js';
import { scim, USER_SCHEMA } from './scim-client.js';
import { scimAppOnFreshStore } from './scim-store-app.js';

const user = (userName: string, extra: object = {}) => ({ schemas: [USER_SCHEMA], userName, emails: [{ value: userName, primary: true }], ...extra });

/**
 * An identity provider's first push: many creates at once, as Okta sends them. On a store on disk (an
 * SQLite file: its commits share the write-ahead log's syncs), each create is answered on its own, a
 * duplicate still 409, and a deactivation sent in the burst locks the user out when it is answered.
 */
for (const dialect of dialects) {
  describe(`SCIM creates in a burst [${dialect}]`, () => {
    const { app, store } = scimAppOnFreshStore(dialect, 'burstco');

    it('answers every create of a burst 201 with its own user, each stored and active', async () => {
      const names = Array.from({ length: 60 }, (_, index) => `hire-${index}@burst.example`);
      const answers = await Promise.all(names.map((name) => scim(app(), 'POST', '/Users', user(name))));
      expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 201));
      expect(answers.map((answer) => answer.body.userName)).toEqual(names);
      const ids = answers.map((answer) => answer.body.id as string);
      expect(new Set(ids).size).toBe(names.length);
      const stored = await readUsers(store().db, ids);
      expect(stored.map((row) => [row.email, row.active]).sort()).toEqual(names.map((name) => [name, true]).sort());
    });

    it('of creates of one userName (any case) or one e-mail at once, exactly one wins; the others 409', async () => {
      const sameName = await Promise.all(['Twin@burst.example', 'twin@burst.example', 'TWIN@burst.example'].map((name) => scim(app(), 'POST', '/Users', user(name))));
      expect(sameName.map((answer) => answer.status).sort()).toEqual([201, 409, 409]);
      const listed = await scim(app(), 'GET', `/Users?filter=${encodeURIComponent('userName eq "twin@burst.example"')}`);
      expect(listed.body.totalResults).toBe(1);
      const mixed = await Promise.all(
        [...Array.from({ length: 20 }, (_, index) => `other-${index}@burst.example`), 'twin@burst.example'].map((name) => scim(app(), 'POST', '/Users', user(name))),
      );
      expect(mixed.map((answer) => answer.status)).toEqual([...Array.from({ length: 20 }, () => 201), 409]);
    });

    it('a deactivation sent among creates is in force when it is answered', async () => {
      const leaver = (await scim(app(), 'POST', '/Users', user('leaver@burst.example'))).body.id as string;
      const [, deactivated] = await Promise.all([
        scim(app(), 'POST', '/Users', user('before@burst.example')),
        scim(app(), 'PATCH', `/Users/${leaver}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] }),
        scim(app(), 'POST', '/Users', user('after@burst.example')),
      ]);
      expect(deactivated.status).toBe(200);
      expect(deactivated.body.active).toBe(false);
      expect((await readUsers(store().db, [leaver]))[0]?.active).toBe(false);
    });
  });
}
