import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { upsertFiles, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { ADMIN_KEY, admin, adminGet, buildEventApp, documentRecord, postEvent, signedHeaders, tokenHeaders, type ListedEvent } from './event-fixtures.js';

const T = Date.parse('2024-05-01T10:00:00Z');
type Page = { items: ListedEvent[]; nextCursor: string | null };

/**
 * Issue 11, section 1: the production platform's pushes (platform-api.md section 5) differ from part 6
 * field for field. Each is acknowledged, stored as received, and read from wherever its fields stand.
 */
describeEachStore('POST /events reads the production shapes', (store) => {
  let app: FastifyInstance;
  let settle: () => Promise<void>;

  beforeAll(async () => {
    await seedDirectory(store().db);
    // The demo platform's ids are numbers: user 1001 of acme and her document.
    await upsertUsers(store().db, [{ id: '1001', name: 'Numeric Nora', email: null, avatar: null, teamId: 'acme', departmentIds: [], watermark: null }]);
    await upsertFiles(store().db, [documentRecord('2002', '1001', 'acme')]);
    ({ app, settle } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY }));
  });
  afterAll(async () => {
    await app.close();
  });

  const accepted = async (kind: string, body: unknown, headers: Record<string, string>) => {
    const response = await postEvent(app, kind, body, headers);
    expect(response.statusCode, JSON.stringify(response.json())).toBe(200);
    await settle();
    return store().db.selectFrom('events').selectAll().where('body', '=', JSON.stringify(body)).executeTakeFirstOrThrow();
  };

  it('DateMention with its file and author only inside createData, then update and remove naming only the reminder', async () => {
    const create = {
      kind: 'mention',
      type: 'date_mention',
      action: 'create',
      createData: { id: 'prod-r1', fileId: 'plan', authorId: 'zhang', content: '周会', remindUserIds: ['lilei', 'wang'], remindAt: '2030-03-01T09:00:00+08:00' },
    };
    expect(await accepted('DateMention', create, tokenHeaders('zhang'))).toMatchObject({ outcome: 'processed', file_id: 'plan', user_id: 'zhang' });
    const update = { kind: 'mention', type: 'date_mention', action: 'update', updateData: { id: 'prod-r1', remindAt: '2030-03-02T01:00:00Z', remindUserIds: ['lilei'] } };
    expect(await accepted('DateMention', update, tokenHeaders('zhang'))).toMatchObject({ outcome: 'processed', file_id: 'plan' });
    const reminders = await adminGet<{ items: unknown[] }>(app, '/api/reminders?fileId=plan');
    expect(reminders.items).toEqual([
      { id: 'prod-r1', fileId: 'plan', authorId: 'zhang', content: '周会', remindUserIds: ['lilei'], remindAt: '2030-03-02T01:00:00Z', status: 'scheduled' },
    ]);
    const remove = { kind: 'mention', type: 'date_mention', action: 'remove', removeData: { id: 'prod-r1' } };
    expect(await accepted('DateMention', remove, tokenHeaders('zhang'))).toMatchObject({ outcome: 'processed', file_id: 'plan' });
    expect((await adminGet<{ items: Array<{ status: string }> }>(app, '/api/reminders?fileId=plan')).items[0]!.status).toBe('cancelled');
  });

  it('FileContent and Collaborator with the timestamp at the top level', async () => {
    const content = { kind: 'fileContent', type: 'fileContent', action: 'update', fileId: 'teamdoc', userId: 'carol', timestamp: T, fileContent: { version: 3 } };
    await accepted('FileContent', content, signedHeaders('teamdoc'));
    const file = await store().db.selectFrom('files').select(['version', 'updated_at']).where('id', '=', 'teamdoc').executeTakeFirstOrThrow();
    expect(file).toEqual({ version: 3, updated_at: '2024-05-01T10:00:00Z' });
    const enter = { kind: 'collaborator', action: 'enter', fileId: 'teamdoc', userId: 'carol', timestamp: T, collaboratorChanged: { clientId: 'c-1' } };
    await accepted('Collaborator', enter, signedHeaders('teamdoc'));
    expect(await adminGet(app, '/api/files/teamdoc/presence')).toEqual({ fileId: 'teamdoc', users: [{ userId: 'carol', clients: ['c-1'], since: '2024-05-01T10:00:00Z' }] });
  });

  it('FileContent auto_mention: no userId, the editor in autoMention.editorProviderId (a number)', async () => {
    const auto = { kind: 'fileContent', type: 'auto_mention', action: 'update', fileId: '2002', timestamp: T, autoMention: { editorProviderId: 1001 } };
    expect(await accepted('FileContent', auto, signedHeaders('2002'))).toMatchObject({ outcome: 'processed', user_id: '1001', action: 'update' });
    const activity = await store().db.selectFrom('activity').select(['user_id', 'kind', 'occurred_at']).where('file_id', '=', '2002').execute();
    expect(activity).toEqual([{ user_id: '1001', kind: 'edit', occurred_at: '2024-05-01T10:00:00Z' }]);
  });

  it('numbers where strings are expected: a numeric userId that is the token user, numeric comment ids', async () => {
    const comment = { kind: 'comment', type: 'comment', action: 'create', fileId: 2002, userId: 1001, comment: { guid: 77, content: 'hi', userIds: ['lilei', 1001] } };
    expect(await accepted('Comment', comment, tokenHeaders('1001'))).toMatchObject({ outcome: 'processed', file_id: '2002', user_id: '1001' });
    const notified = await store().db.selectFrom('notifications').select(['type', 'data']).where('dedupe_key', 'like', '%:2002:%').orderBy('type').execute();
    expect(notified.map((row) => [row.type, JSON.parse(row.data).userId]).sort()).toEqual([
      ['comment.created', '1001'],
      ['mention.created', '1001'],
      ['mention.created', 'lilei'],
    ]);
  });

  it('a Revision with only a title (no revisionId) is processed, keyed by its title; one with nothing to know it by is not', async () => {
    const titled = { kind: 'revision', action: 'create', fileId: 'plan', userId: 'zhang', revision: { title: 'Q3 draft' } };
    expect(await accepted('Revision', titled, tokenHeaders('zhang'))).toMatchObject({ outcome: 'processed', subject: 'revision:title:Q3 draft' });
    const activity = await store().db.selectFrom('activity').select(['user_id', 'kind']).where('file_id', '=', 'plan').where('kind', '=', 'revision').execute();
    expect(activity).toEqual([{ user_id: 'zhang', kind: 'revision' }]);
    const bare = { kind: 'revision', action: 'create', fileId: 'plan', userId: 'zhang', revision: {} };
    expect(await accepted('Revision', bare, tokenHeaders('zhang'))).toMatchObject({
      outcome: 'unprocessed',
      problem: 'revision has no revisionId, docHistoryId or title to know it by',
    });
  });

  it('likes of comments and discussions, and a discussion with `position`, are understood', async () => {
    const likeComment = { kind: 'comment', type: 'comment', action: 'like', fileId: 'plan', userId: 'lilei', likeComment: { selectionGuid: 's1', content: '赞' } };
    const likeDiscussion = { kind: 'discussion', type: 'discussion', action: 'like', fileId: 'plan', userId: 'lilei', likeDiscussion: { id: 'd1', content: '赞' } };
    const positioned = {
      kind: 'discussion',
      type: 'discussion',
      action: 'create',
      fileId: 'plan',
      userId: 'lilei',
      discussion: { id: 'pos-1', unixus: T * 1000, content: '讨论', position: 'p7' },
    };
    expect(await accepted('Comment', likeComment, tokenHeaders('lilei'))).toMatchObject({ outcome: 'processed', action: 'like' });
    expect(await accepted('Discussion', likeDiscussion, tokenHeaders('lilei'))).toMatchObject({ outcome: 'processed', action: 'like' });
    expect(await accepted('Discussion', positioned, tokenHeaders('lilei'))).toMatchObject({ outcome: 'processed' });
    const created = await store().db.selectFrom('notifications').select('data').where('dedupe_key', '=', 'discussion:plan:pos-1').executeTakeFirstOrThrow();
    expect(JSON.parse(created.data)).toMatchObject({ commentId: 'pos-1', content: '讨论', userId: 'lilei' });
  });

  it('another System type (the licence notice) is processed; a System body without a type is kept as unprocessed, listed, and can be re-run', async () => {
    const expiring = { kind: 'System', type: 'licenseExpiring', appId: 'test-app', timestamp: T, daysLeft: 7 };
    expect(await accepted('System', expiring, signedHeaders('any'))).toMatchObject({ outcome: 'processed', problem: null });
    const untyped = { kind: 'System', appId: 'test-app', timestamp: T };
    const row = await accepted('System', untyped, signedHeaders('any'));
    expect(row).toMatchObject({ outcome: 'unprocessed', problem: 'type is missing' });
    const listed = await adminGet<Page>(app, '/api/events?outcome=unprocessed');
    expect(listed.items.find((item) => item.id === row.id)).toMatchObject({ kind: 'System', action: null, outcome: 'unprocessed', body: untyped });
    // The default listing shows accepted events: processed and unprocessed.
    const all = await adminGet<Page>(app, '/api/events?limit=500');
    expect(new Set(all.items.map((item) => item.outcome))).toEqual(new Set(['processed', 'unprocessed']));
    const rerun = await app.inject({ method: 'POST', url: `/api/events/${row.id}/reprocess`, headers: admin });
    expect(rerun.json()).toEqual({ id: row.id, outcome: 'unprocessed', problem: row.problem });
    const bad = await app.inject({ method: 'GET', url: '/api/events?outcome=lost', headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });
});
