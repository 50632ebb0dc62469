import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/stores.js';
import { GROUP_SCHEMA, patchOp, USER_SCHEMA } from '../scim/scim-client.js';
import { api, openInstances, scimRequest, SEED, seeded, shuffled, type Instances } from './instances.js';

/**
 * Writers at once on two instances (issue 29): every write answered 2xx is in the stored state when the
 * writers stop, and a write that cannot be applied is refused with 409 or 412, never lost. The order of
 * the requests is drawn from SEED (CONCURRENCY_SEED to replay another).
 */
for (const dialect of dialects) {
  describe(`concurrent writers on two instances [${dialect}] (seed ${SEED})`, { timeout: 120_000 }, () => {
    let instances: Instances;
    const random = seeded(SEED);
    const either = () => (random() < 0.5 ? instances.a : instances.b);

    beforeAll(async () => {
      instances = await openInstances(dialect);
    });
    afterAll(async () => {
      await instances?.close();
    });

    const createScimUser = async (userName: string) => {
      const created = await scimRequest(instances.a, 'POST', '/Users', { schemas: [USER_SCHEMA], userName, displayName: `Person ${userName}`, active: true });
      expect(created.statusCode, created.body).toBe(201);
      return created.json().id as string;
    };
    const storedUser = async (id: string) => {
      const read = await api(instances.a, { method: 'GET', url: `/api/users/${encodeURIComponent(id)}` });
      expect(read.statusCode, read.body).toBe(200);
      return read.json() as { name: string; active?: boolean; departmentIds?: string[]; watermark?: string[] };
    };

    it('parallel grants and removals on one file through both instances: each acknowledged one holds', async () => {
      const principals = [
        'user:zhang',
        'user:lilei',
        'user:hanmeimei',
        'user:wang',
        'user:alice',
        'user:bob',
        'user:carol',
        'department:rd',
        'department:fe',
        'department:web',
        'department:be',
        'team:acme',
      ];
      const roles = ['viewer', 'commenter', 'editor'] as const;
      const wanted = new Map<string, string>(principals.map((principal) => [principal, roles[Math.floor(random() * roles.length)]!]));
      const put = (principal: string, role: string) => api(either(), { method: 'PUT', url: `/api/files/secret/grants/${principal}`, payload: { role } });
      const puts = await Promise.all(shuffled(principals, random).map((principal) => put(principal, wanted.get(principal)!)));
      expect(puts.map((answer) => answer.statusCode)).toEqual(principals.map(() => 200));

      // Half removed, the others given another role, at once.
      const removed = new Set(shuffled(principals, random).slice(0, principals.length / 2));
      const second = await Promise.all(
        shuffled(principals, random).map((principal) => {
          if (removed.has(principal)) return api(either(), { method: 'DELETE', url: `/api/files/secret/grants/${principal}` });
          wanted.set(principal, 'manager');
          return put(principal, 'manager');
        }),
      );
      expect(second.map((answer) => answer.statusCode).sort()).toEqual(
        [...Array<number>(removed.size).fill(204), ...Array<number>(principals.length - removed.size).fill(200)].sort(),
      );

      const file = await api(instances.b, { method: 'GET', url: '/api/files/secret' });
      const sharing = (file.json().sharing as Array<{ principal: string; role: string }>).map(({ principal, role }) => `${principal}=${role}`).sort();
      expect(sharing).toEqual(
        principals
          .filter((principal) => !removed.has(principal))
          .map((principal) => `${principal}=${wanted.get(principal)}`)
          .sort(),
      );
    });

    it('30 parallel SCIM membership adds, then 20 of 30 removals, as Okta and Entra ID push them: the group is what the acknowledged ones imply', async () => {
      const group = await scimRequest(instances.a, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Parallel' });
      expect(group.statusCode, group.body).toBe(201);
      const groupId = group.json().id as string;
      const people = await Promise.all(Array.from({ length: 30 }, (_, index) => createScimUser(`member${String(index).padStart(2, '0')}`)));
      // Each answer is 200 (acknowledged) or a refusal that says why (409, 412); never a 5xx or a silent loss.
      const acknowledged = (answers: Array<{ statusCode: number; body: string }>, ids: readonly string[]) =>
        ids.filter((id, index) => {
          const { statusCode, body } = answers[index]!;
          expect([200, 409, 412], body).toContain(statusCode);
          return statusCode === 200;
        });

      const adding = shuffled(people, random);
      const adds = await Promise.all(adding.map((id) => scimRequest(either(), 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'add', path: 'members', value: [{ value: id }] }))));
      const added = acknowledged(adds, adding);
      const members = async () => {
        const read = await scimRequest(instances.b, 'GET', `/Groups/${groupId}`);
        return ((read.json().members ?? []) as Array<{ value: string }>).map((member) => member.value).sort();
      };
      expect(added.length, 'adds acknowledged').toBeGreaterThan(0);
      expect(await members()).toEqual([...added].sort());

      const leaving = shuffled(added, random).slice(0, Math.round((added.length * 2) / 3));
      const removals = await Promise.all(leaving.map((id) => scimRequest(either(), 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'remove', path: `members[value eq "${id}"]` }))));
      const removed = acknowledged(removals, leaving);
      expect(await members()).toEqual(added.filter((id) => !removed.includes(id)).sort());
      // The directory agrees: a removed member keeps none of the department's rights, a member keeps them.
      for (const id of added) {
        const departments = (await storedUser(id)).departmentIds ?? [];
        if (removed.includes(id)) expect(departments, id).not.toContain(groupId);
        else expect(departments, id).toContain(groupId);
      }
    });

    it('a deactivation on one instance racing a displayName change on the other: every leaver stays deactivated', async () => {
      const people = await Promise.all(Array.from({ length: 10 }, (_, index) => createScimUser(`leaver${String(index).padStart(2, '0')}`)));
      const requests = people.flatMap((id) => [
        () => scimRequest(instances.a, 'PATCH', `/Users/${id}`, patchOp({ op: 'Replace', path: 'active', value: 'False' })),
        () => scimRequest(instances.b, 'PATCH', `/Users/${id}`, patchOp({ op: 'replace', path: 'displayName', value: `Renamed ${id}` })),
      ]);
      const answers = await Promise.all(shuffled(requests, random).map((send) => send()));
      expect(answers.map((answer) => answer.statusCode)).toEqual(requests.map(() => 200));
      for (const id of people) {
        const user = await storedUser(id);
        expect({ id, name: user.name, active: user.active }).toEqual({ id, name: `Renamed ${id}`, active: false });
      }
    });

    it('SCIM and the management API write one person at once: both kinds of change hold, stale API writes get 412', async () => {
      const id = await createScimUser('both.hands');
      const rounds = 8;
      const scimWriter = async () => {
        for (let round = 1; round <= rounds; round += 1) {
          const body =
            round === rounds
              ? patchOp({ op: 'replace', value: { displayName: `Name ${round}`, active: false } })
              : patchOp({ op: 'replace', path: 'displayName', value: `Name ${round}` });
          const answer = await scimRequest(round % 2 === 0 ? instances.a : instances.b, 'PATCH', `/Users/${id}`, body);
          expect(answer.statusCode, answer.body).toBe(200);
        }
      };
      const refusedWith = new Set<number>();
      const apiWriter = async () => {
        for (let round = 1; round <= rounds; round += 1) {
          // Read, change the watermark (SCIM has none), write back with If-Match; a 412 reads again.
          for (;;) {
            const read = await api(instances.unowned, { method: 'GET', url: `/api/users/${id}` });
            const written = await api(instances.unowned, {
              method: 'PUT',
              url: `/api/users/${id}`,
              headers: { 'if-match': read.headers.etag as string },
              payload: { ...(read.json() as object), watermark: [`mark ${round}`] },
            });
            if (written.statusCode === 200) break;
            expect(written.statusCode, written.body).toBe(412);
            expect(written.json().error.code).toBe('precondition_failed');
            refusedWith.add(written.statusCode);
          }
        }
      };
      // The SCIM instance's own management API refuses SCIM's team (409), changing nothing.
      const owned = await api(instances.a, { method: 'PUT', url: `/api/users/${id}`, payload: { name: 'Not mine', teamId: 'scimco' } });
      expect(owned.statusCode).toBe(409);
      expect(owned.json().error.code).toBe('team_owned_by_source');

      await Promise.all([scimWriter(), apiWriter()]);
      const user = await storedUser(id);
      expect({ name: user.name, active: user.active, watermark: user.watermark }).toEqual({ name: `Name ${rounds}`, active: false, watermark: [`mark ${rounds}`] });
    });
  });
}
