import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANY } from '../../examples/library-use/host-app.js';
import { InMemoryDirectory } from '../../examples/library-use/in-memory-directory.js';
import type { EventPipeline } from '../../src/events/event-pipeline.js';
import type { EventStats } from '../../src/events/event-stats.js';
import { upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import {
  ADMIN_KEY,
  admin,
  adminGet,
  buildEventApp,
  documentRecord,
  collaborator,
  commentCreate,
  dateMention,
  fileContent,
  mentionAt,
  postEvent,
  revision,
  signedHeaders,
  tokenHeaders,
  type ListedEvent,
} from './event-fixtures.js';

const T = 1_709_280_000_000;
type Page = { items: ListedEvent[]; nextCursor: string | null };

/**
 * Issue 10, finding 1: an event is bound to its sender. On a token event the actor is the token's user,
 * who must hold the permission the action needs on the file; a refusal is a 403 that derives nothing and
 * keeps the event aside as `refused`.
 */
describeEachStore('POST /events trust rules', (store) => {
  let app: FastifyInstance;
  let settle: () => Promise<void>;
  let pipeline: EventPipeline;

  beforeAll(async () => {
    await seedDirectory(store().db);
    // A file of the other team, with its own reminder.
    await upsertFiles(store().db, [documentRecord('opsdoc', 'olga', 'other')]);
    ({ app, settle, pipeline } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY }));
  });
  afterAll(async () => {
    await app.close();
  });

  const notificationsOf = async (guid: string) => store().db.selectFrom('notifications').select(['type', 'data']).where('data', 'like', `%${guid}%`).execute();
  const eventRow = (body: unknown) => store().db.selectFrom('events').selectAll().where('body', '=', JSON.stringify(body)).executeTakeFirstOrThrow();

  it('refuses a body userId that is not the token user: 403, kept as refused, listed apart, counted, nothing derived', async () => {
    const forged = commentCreate('plan', 'lilei', { guid: 'forged-1', content: 'as lilei', userIds: ['wang'] });
    const response = await postEvent(app, 'Comment', forged, tokenHeaders('zhang'));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: { code: 'actor_mismatch', message: 'userId "lilei" is not the user of the token ("zhang")' } });
    await settle();
    expect(await notificationsOf('forged-1')).toEqual([]);
    const row = await eventRow(forged);
    expect(row).toMatchObject({ outcome: 'refused', kind: 'Comment', file_id: 'plan', user_id: 'lilei' });
    expect(row.problem).toContain('actor_mismatch');

    const accepted = await adminGet<Page>(app, '/api/events?limit=500');
    expect(accepted.items.map((item) => item.id)).not.toContain(row.id);
    const refused = await adminGet<Page>(app, '/api/events?outcome=refused');
    expect(refused.items.find((item) => item.id === row.id)).toMatchObject({ outcome: 'refused', problem: expect.stringContaining('not the user of the token') });
    const stats = await adminGet<EventStats>(app, '/api/events/stats');
    expect(stats.log.refused).toBeGreaterThanOrEqual(1);
  });

  it('refuses a createData.authorId that is not the token user', async () => {
    const forged = dateMention('plan', 'zhang', 'create', { id: 'r-forged', fileId: 'plan', authorId: 'lilei', content: 'x', remindAt: '2030-01-01T00:00:00Z' });
    const response = await postEvent(app, 'DateMention', forged, tokenHeaders('zhang'));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error: { code: 'actor_mismatch', message: expect.stringContaining('createData.authorId') } });
    await settle();
    expect(await store().db.selectFrom('reminders').select('id').where('id', '=', 'r-forged').execute()).toEqual([]);
  });

  it('takes an absent actor from the token', async () => {
    const body = { kind: 'comment', type: 'comment', action: 'create', fileId: 'plan', comment: { guid: 'no-user-1', content: 'who am I' } };
    expect((await postEvent(app, 'Comment', body, tokenHeaders('lilei'))).statusCode).toBe(200);
    await settle();
    expect(await eventRow(body)).toMatchObject({ outcome: 'processed', user_id: 'lilei' });
    const [created] = await notificationsOf('no-user-1');
    expect(JSON.parse(created!.data)).toMatchObject({ fileId: 'plan', userId: 'lilei', commentId: 'no-user-1' });
  });

  describe('the actor needs the permission of the action (interface 2.1)', () => {
    const cases: Array<{ name: string; kind: string; body: Record<string, unknown>; user: string; status: number }> = [
      // plan: zhang creator, lilei editor, rd (hanmeimei, wang) viewers; sheet: fe (hanmeimei) commenters, bob manager.
      { name: 'a viewer may not comment', kind: 'Comment', user: 'hanmeimei', status: 403, body: commentCreate('plan', 'hanmeimei', { guid: 'p-1', content: 'x' }) },
      {
        name: 'a viewer may not mention',
        kind: 'MentionAt',
        user: 'wang',
        status: 403,
        body: mentionAt('plan', 'wang', 'mention_at', { mentionAt: { guid: 'p-2', userId: 'zhang' } }),
      },
      {
        name: 'a viewer may not start a discussion',
        kind: 'Discussion',
        user: 'hanmeimei',
        status: 403,
        body: { kind: 'discussion', type: 'discussion', action: 'create', fileId: 'plan', userId: 'hanmeimei', discussion: { id: 'p-3', content: 'x' } },
      },
      { name: 'a commenter may comment', kind: 'Comment', user: 'hanmeimei', status: 200, body: commentCreate('sheet', 'hanmeimei', { guid: 'p-4', content: 'ok' }) },
      {
        name: 'a commenter may not set a date reminder',
        kind: 'DateMention',
        user: 'hanmeimei',
        status: 403,
        body: dateMention('sheet', 'hanmeimei', 'create', { id: 'p-5', content: '', remindAt: '2030-01-01T00:00:00Z' }),
      },
      { name: 'a commenter may not make a revision', kind: 'Revision', user: 'hanmeimei', status: 403, body: revision('sheet', 'hanmeimei', 'create', 501) },
      {
        name: 'an editor may set a date reminder',
        kind: 'DateMention',
        user: 'lilei',
        status: 200,
        body: dateMention('plan', 'lilei', 'create', { id: 'p-6', content: '', remindAt: '2030-01-01T00:00:00Z' }),
      },
      { name: 'an editor may make a revision', kind: 'Revision', user: 'lilei', status: 200, body: revision('plan', 'lilei', 'create', 601) },
      { name: 'a reader may enter (presence, pushed with a token)', kind: 'Collaborator', user: 'wang', status: 200, body: collaborator('plan', 'wang', 'enter', 'w-1', T) },
      { name: 'a non-reader may not enter', kind: 'Collaborator', user: 'olga', status: 403, body: collaborator('plan', 'olga', 'enter', 'o-1', T) },
      { name: 'a viewer may not report content (pushed with a token)', kind: 'FileContent', user: 'wang', status: 403, body: fileContent('plan', 'wang', 77, T) },
      { name: 'another team may not comment', kind: 'Comment', user: 'olga', status: 403, body: commentCreate('plan', 'olga', { guid: 'p-7', content: 'x' }) },
      { name: 'nobody comments on an unknown file', kind: 'Comment', user: 'zhang', status: 403, body: commentCreate('no-such-file', 'zhang', { guid: 'p-8', content: 'x' }) },
    ];
    for (const testCase of cases) {
      it(`${testCase.name} (${testCase.status})`, async () => {
        const response = await postEvent(app, testCase.kind, testCase.body, tokenHeaders(testCase.user));
        expect(response.statusCode, JSON.stringify(response.json())).toBe(testCase.status);
        if (testCase.status === 403) expect(response.json()).toMatchObject({ error: { code: 'permission_denied' } });
        await settle();
        const row = await eventRow(testCase.body);
        expect(row.outcome).toBe(testCase.status === 200 ? 'processed' : 'refused');
        if (testCase.status === 403) expect(await store().db.selectFrom('notifications').select('id').where('event_id', '=', row.id).execute()).toEqual([]);
      });
    }
  });

  it("updating or deleting another user's revision needs manageable", async () => {
    expect((await postEvent(app, 'Revision', revision('plan', 'zhang', 'create', 700), tokenHeaders('zhang'))).statusCode).toBe(200);
    expect((await postEvent(app, 'Revision', revision('sheet', 'alice', 'create', 701), tokenHeaders('alice'))).statusCode).toBe(200);
    // lilei edits plan but does not manage it: zhang's revision is not hers to change; her own is.
    const update = await postEvent(app, 'Revision', revision('plan', 'lilei', 'update', 700), tokenHeaders('lilei'));
    expect(update.statusCode).toBe(403);
    expect(update.json()).toMatchObject({ error: { code: 'permission_denied', message: expect.stringContaining('manageable') } });
    expect((await postEvent(app, 'Revision', revision('plan', 'lilei', 'delete', 700), tokenHeaders('lilei'))).statusCode).toBe(403);
    expect((await postEvent(app, 'Revision', revision('plan', 'lilei', 'update', 601, { title: 'mine' }), tokenHeaders('lilei'))).statusCode).toBe(200);
    // bob manages sheet: he may change alice's revision.
    expect((await postEvent(app, 'Revision', revision('sheet', 'bob', 'update', 701), tokenHeaders('bob'))).statusCode).toBe(200);
    await settle();
    // Each file's log in order; two files' effects may be applied in either order (docs/events.md).
    const log = await store()
      .db.selectFrom('revisions')
      .select(['revision_id', 'user_id', 'action'])
      .where('revision_id', 'in', [700, 701, 601])
      .orderBy('file_id')
      .orderBy('seq')
      .execute();
    expect(log).toEqual([
      { revision_id: 601, user_id: 'lilei', action: 'create' },
      { revision_id: 700, user_id: 'zhang', action: 'create' },
      { revision_id: 601, user_id: 'lilei', action: 'update' },
      { revision_id: 701, user_id: 'alice', action: 'create' },
      { revision_id: 701, user_id: 'bob', action: 'update' },
    ]);
  });

  it("no event takes over another file's reminder", async () => {
    const ops = dateMention('opsdoc', 'olga', 'create', {
      id: 'r-ops',
      fileId: 'opsdoc',
      authorId: 'olga',
      content: '值班',
      remindUserIds: ['olga'],
      remindAt: '2030-06-01T08:00:00Z',
    });
    expect((await postEvent(app, 'DateMention', ops, tokenHeaders('olga'))).statusCode).toBe(200);
    // The production update names only the reminder: zhang cannot edit opsdoc, so it is refused.
    const takeover = {
      kind: 'mention',
      type: 'date_mention',
      action: 'update',
      updateData: { id: 'r-ops', content: 'mine now', remindUserIds: ['zhang'], remindAt: '2020-01-01T00:00:00Z' },
    };
    const refused = await postEvent(app, 'DateMention', takeover, tokenHeaders('zhang'));
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: 'permission_denied' } });
    const removal = { kind: 'mention', type: 'date_mention', action: 'remove', removeData: { id: 'r-ops' } };
    expect((await postEvent(app, 'DateMention', removal, tokenHeaders('zhang'))).statusCode).toBe(403);
    // Naming the other team's file outright is refused too.
    const onTheirFile = dateMention('opsdoc', 'zhang', 'create', { id: 'r-ops', fileId: 'opsdoc', authorId: 'zhang', content: 'x', remindAt: '2020-01-01T00:00:00Z' });
    expect((await postEvent(app, 'DateMention', onTheirFile, tokenHeaders('zhang'))).statusCode).toBe(403);
    // On a file zhang edits, the same id is another reminder: olga's stays as it was.
    const own = { ...takeover, fileId: 'plan', updateData: { ...takeover.updateData, remindAt: '2030-07-01T00:00:00Z' } };
    expect((await postEvent(app, 'DateMention', own, tokenHeaders('zhang'))).statusCode).toBe(200);
    await settle();
    const rows = await store()
      .db.selectFrom('reminders')
      .select(['file_id', 'author_id', 'content', 'remind_user_ids', 'remind_at', 'status'])
      .where('id', '=', 'r-ops')
      .orderBy('file_id')
      .execute();
    // By file: the effects of two files may be applied in either order (docs/events.md).
    expect(rows).toEqual([
      { file_id: 'opsdoc', author_id: 'olga', content: '值班', remind_user_ids: '["olga"]', remind_at: '2030-06-01T08:00:00Z', status: 'scheduled' },
      { file_id: 'plan', author_id: 'zhang', content: 'mine now', remind_user_ids: '["zhang"]', remind_at: '2030-07-01T00:00:00Z', status: 'scheduled' },
    ]);
  });

  it("an update naming only the reminder is applied to the reminder's file, by anyone who may edit it; its author stays", async () => {
    const create = dateMention('plan', 'zhang', 'create', {
      id: 'r-shared',
      fileId: 'plan',
      authorId: 'zhang',
      content: 'v1',
      remindUserIds: ['lilei'],
      remindAt: '2030-02-01T08:00:00Z',
    });
    expect((await postEvent(app, 'DateMention', create, tokenHeaders('zhang'))).statusCode).toBe(200);
    // The update is resolved from the log even before the create's effects are derived.
    const update = { kind: 'mention', type: 'date_mention', action: 'update', updateData: { id: 'r-shared', content: 'v2', remindAt: '2030-02-02T08:00:00Z' } };
    expect((await postEvent(app, 'DateMention', update, tokenHeaders('lilei'))).statusCode).toBe(200);
    await settle();
    expect(await eventRow(update)).toMatchObject({ outcome: 'processed', file_id: 'plan', user_id: 'lilei' });
    const reminder = await store().db.selectFrom('reminders').select(['author_id', 'content', 'remind_at']).where('id', '=', 'r-shared').executeTakeFirstOrThrow();
    expect(reminder).toEqual({ author_id: 'zhang', content: 'v2', remind_at: '2030-02-02T08:00:00Z' });
  });

  it("a signed event carries the platform's word for the actor", async () => {
    expect((await postEvent(app, 'FileContent', fileContent('secret', 'olga', 5, T), signedHeaders('secret'))).statusCode).toBe(200);
    await settle();
    const row = await eventRow(fileContent('secret', 'olga', 5, T));
    expect(row).toMatchObject({ outcome: 'processed', user_id: 'olga', credential: 'signature' });
  });

  it('binds a push to the user its signature was made for: another user in the body is refused, an absent one is taken from it (issue 20, item 11)', async () => {
    // One signature, made for wang on the plan, used for pushes about two users within its lifetime.
    const headers = signedHeaders('plan', 'wang');
    expect((await postEvent(app, 'Collaborator', collaborator('plan', 'wang', 'enter', 'bound-1', T), headers)).statusCode).toBe(200);
    const replayed = await postEvent(app, 'Collaborator', collaborator('plan', 'lilei', 'enter', 'bound-2', T), headers);
    expect(replayed.statusCode).toBe(403);
    expect(replayed.json()).toEqual({ error: { code: 'actor_mismatch', message: 'userId "lilei" is not the user the signature was made for ("wang")' } });
    const anonymous = { kind: 'collaborator', action: 'enter', fileId: 'plan', collaboratorChanged: { clientId: 'bound-3', timestamp: T } };
    expect((await postEvent(app, 'Collaborator', anonymous, headers)).statusCode).toBe(200);
    await settle();
    expect(await eventRow(collaborator('plan', 'lilei', 'enter', 'bound-2', T))).toMatchObject({
      outcome: 'refused',
      user_id: 'lilei',
      sender_id: 'wang',
      credential: 'signature',
    });
    expect(await eventRow(anonymous)).toMatchObject({ user_id: 'wang', sender_id: 'wang' });
    // Re-processing keeps the refusal.
    const { id } = await eventRow(collaborator('plan', 'lilei', 'enter', 'bound-2', T));
    expect((await app.inject({ method: 'POST', url: `/api/events/${id}/reprocess`, headers: admin })).json()).toMatchObject({ outcome: 'refused' });
  });

  it('refuses the token of a deactivated user', async () => {
    await store().db.updateTable('users').set({ active: 0 }).where('id', '=', 'carol').execute();
    try {
      const response = await postEvent(app, 'Comment', commentCreate('teamdoc', 'carol', { guid: 'gone-1', content: 'x' }), tokenHeaders('carol'));
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ error: { code: 'permission_denied', message: expect.stringContaining('deactivated') } });
    } finally {
      await store().db.updateTable('users').set({ active: 1 }).where('id', '=', 'carol').execute();
    }
  });

  it('a directory write is in force for the very next event, though answers are kept in memory between writes', async () => {
    const comment = (guid: string) => commentCreate('plan', 'lilei', { guid, content: 'x' });
    const post = async (guid: string) => (await postEvent(app, 'Comment', comment(guid), tokenHeaders('lilei'))).statusCode;
    expect([await post('kept-1'), await post('kept-2')]).toEqual([200, 200]);
    // A DBA's UPDATE counts like any other writer: the store's triggers move the directory's version.
    await store().db.updateTable('users').set({ active: 0 }).where('id', '=', 'lilei').execute();
    expect(await post('kept-3')).toBe(403);
    await store().db.updateTable('users').set({ active: 1 }).where('id', '=', 'lilei').execute();
    expect(await post('kept-4')).toBe(200);
    // The editor grant revoked: lilei only reads the plan (through the department), and may not comment.
    await store().db.deleteFrom('file_grants').where('file_id', '=', 'plan').where('principal_id', '=', 'lilei').execute();
    try {
      const refused = await postEvent(app, 'Comment', comment('kept-5'), tokenHeaders('lilei'));
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error: { code: 'permission_denied' } });
    } finally {
      await store().db.insertInto('file_grants').values({ file_id: 'plan', principal_kind: 'user', principal_id: 'lilei', role_rank: 3 }).execute();
    }
    expect(await post('kept-6')).toBe(200);
  });

  it('re-processing never turns a forged or unpermitted event into an accepted one, and the log names the real sender', async () => {
    // wang (a viewer of the plan) forges a comment by lilei, mentioning zhang.
    const forged = commentCreate('plan', 'lilei', { guid: 'forged-re-1', content: 'as lilei', userIds: ['zhang'] });
    expect((await postEvent(app, 'Comment', forged, tokenHeaders('wang'))).statusCode).toBe(403);
    // wang, in his own name, on a file he only views.
    const unpermitted = commentCreate('plan', 'wang', { guid: 'denied-re-1', content: 'as wang' });
    expect((await postEvent(app, 'Comment', unpermitted, tokenHeaders('wang'))).statusCode).toBe(403);
    const forgedRow = await eventRow(forged);
    const deniedRow = await eventRow(unpermitted);
    expect(forgedRow).toMatchObject({ user_id: 'lilei', sender_id: 'wang' });

    const one = await app.inject({ method: 'POST', url: `/api/events/${forgedRow.id}/reprocess`, headers: admin });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ id: forgedRow.id, outcome: 'refused', problem: expect.stringContaining('actor_mismatch') });
    // The recovery command, on every refused event.
    await pipeline.reprocessOutcome('refused');
    await settle();
    expect(await notificationsOf('forged-re-1')).toEqual([]);
    expect(await notificationsOf('denied-re-1')).toEqual([]);
    expect(await eventRow(forged)).toMatchObject({ outcome: 'refused', problem: expect.stringContaining('actor_mismatch') });
    expect(await eventRow(unpermitted)).toMatchObject({ outcome: 'refused', problem: expect.stringContaining('permission_denied') });

    const refused = await adminGet<Page>(app, '/api/events?outcome=refused&limit=500');
    expect(refused.items.find((item) => item.id === forgedRow.id)).toMatchObject({ userId: 'lilei', senderId: 'wang' });
    expect(refused.items.find((item) => item.id === deniedRow.id)).toMatchObject({ userId: 'wang', senderId: 'wang' });
    const missing = await app.inject({ method: 'POST', url: '/api/events/999999/reprocess', headers: admin });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'event_not_found' } });
  });
});

/** The host's directory, which can be made to fail (its database is down). */
class FlakyHostDirectory extends InMemoryDirectory {
  down = false;
  override async getUser(userId: string) {
    if (this.down) throw new Error('host directory unreachable');
    return super.getUser(userId);
  }
}

describeEachStore('POST /events trust rules over a host directory', (store) => {
  let app: FastifyInstance;
  let settle: () => Promise<void>;
  const sessions: Record<string, string> = { 'session-ann': 'ann', 'session-ben': 'ben' };
  const directory = new FlakyHostDirectory(COMPANY);

  beforeAll(async () => {
    ({ app, settle } = await buildEventApp(
      store(),
      { adminApiKey: ADMIN_KEY },
      {
        directory,
        resolveToken: (token) => (sessions[token] ? { ok: true, userId: sessions[token]!, expiresAt: Number.MAX_SAFE_INTEGER } : { ok: false, reason: 'forged' }),
      },
    ));
  });
  afterAll(async () => {
    await app.close();
  });

  it("asks the host's directory who may do what", async () => {
    // ann edits roadmap (department grant) and only views budget.
    const onRoadmap = commentCreate('roadmap', 'ann', { guid: 'host-1', content: 'ok' });
    expect((await postEvent(app, 'Comment', onRoadmap, { 'x-platform-token': 'session-ann' })).statusCode).toBe(200);
    const onBudget = await postEvent(app, 'Comment', commentCreate('budget', 'ann', { guid: 'host-2', content: 'no' }), { 'x-platform-token': 'session-ann' });
    expect(onBudget.statusCode).toBe(403);
    await settle();
    const outcomes = await store().db.selectFrom('events').select(['file_id', 'outcome']).orderBy('id').execute();
    expect(outcomes).toEqual([
      { file_id: 'roadmap', outcome: 'processed' },
      { file_id: 'budget', outcome: 'refused' },
    ]);
  });

  it('keeps an event whose sender could not be checked (the directory failed), refused until re-processed', async () => {
    const body = commentCreate('roadmap', 'ben', { guid: 'host-3', content: 'while the directory was down' });
    directory.down = true;
    try {
      const response = await postEvent(app, 'Comment', body, { 'x-platform-token': 'session-ben' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ error: { code: 'trust_unchecked' } });
    } finally {
      directory.down = false;
    }
    const row = await store().db.selectFrom('events').select(['id', 'outcome', 'problem']).where('body', '=', JSON.stringify(body)).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ outcome: 'refused', problem: 'trust_unchecked: the directory failed: host directory unreachable' });
    const again = await app.inject({ method: 'POST', url: `/api/events/${row.id}/reprocess`, headers: admin });
    expect(again.json()).toEqual({ id: row.id, outcome: 'processed', problem: null });
  });
});
