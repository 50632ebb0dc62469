import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentCreate, postEvent } from '../events/event-fixtures.js';
import { dialects } from '../helpers/stores.js';
import { api, openInstances, type Instances } from '../concurrency/instances.js';

/**
 * Revocation is immediate on every instance (issue 24 item 6): a guest's token is checked against the
 * store on each request, so the next request after a revocation or an expiry, on any instance, is refused.
 * On PostgreSQL the two instances have their own connection pools, as two processes do.
 */
for (const dialect of dialects) {
  describe(`share link revocation across two instances [${dialect}]`, () => {
    let instances: Instances;
    beforeAll(async () => {
      instances = await openInstances(dialect);
    });
    afterAll(async () => {
      await instances?.close();
    });

    const guestOf = async (role: string) => {
      const link = (await api(instances.a, { method: 'POST', url: '/api/files/plan/share-links', payload: { role } })).json();
      const issued = (await instances.a.inject({ method: 'POST', url: `/share-links/${link.code}/token`, payload: { name: 'Vera' } })).json();
      return { linkId: link.id as string, headers: { 'x-platform-token': issued.token as string }, userId: issued.user.id as string };
    };

    it("deleting a link on one instance refuses its guests' tokens on the other at the next request", async () => {
      const guest = await guestOf('comment');
      const other = await guestOf('comment');
      expect((await instances.b.inject({ method: 'GET', url: '/files/plan', headers: guest.headers })).statusCode).toBe(200);
      expect((await postEvent(instances.b, 'Comment', commentCreate('plan', guest.userId, { guid: 'r1', content: 'x', selectionGuid: 's1' }), guest.headers)).statusCode).toBe(200);

      expect((await api(instances.a, { method: 'DELETE', url: `/api/share-links/${guest.linkId}` })).statusCode).toBe(204);
      const refused = await instances.b.inject({ method: 'GET', url: '/files/plan', headers: guest.headers });
      expect([refused.statusCode, refused.json().error.code]).toEqual([401, 'token_link_revoked']);
      expect((await instances.b.inject({ method: 'GET', url: '/users/current/info', headers: guest.headers })).statusCode).toBe(401);
      const event = await postEvent(instances.b, 'Comment', commentCreate('plan', guest.userId, { guid: 'r2', content: 'x', selectionGuid: 's2' }), guest.headers);
      expect(event.statusCode).toBe(403);
      // Another link's guest is untouched.
      expect((await instances.b.inject({ method: 'GET', url: '/files/plan', headers: other.headers })).statusCode).toBe(200);
    });

    it('a link that expires refuses its guests at once, on every instance', async () => {
      const guest = await guestOf('view');
      expect((await instances.b.inject({ method: 'GET', url: '/files/plan', headers: guest.headers })).statusCode).toBe(200);
      await instances.store.db.updateTable('share_links').set({ expires_at: '2020-01-01T00:00:00Z' }).where('id', '=', guest.linkId).execute();
      for (const app of [instances.a, instances.b]) {
        const refused = await app.inject({ method: 'GET', url: '/files/plan', headers: guest.headers });
        expect([refused.statusCode, refused.json().error.code]).toEqual([401, 'token_link_expired']);
      }
    });
  });
}
