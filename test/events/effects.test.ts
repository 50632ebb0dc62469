import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import {
  ADMIN_KEY,
  admin,
  buildEventApp,
  collaborator,
  commentCreate,
  dateMention,
  fileContent,
  mentionAt,
  postEvent,
  revision,
  signedHeaders,
  systemCallbackError,
  tokenHeaders,
} from './event-fixtures.js';

const T = 1_709_280_000_000; // 2024-03-01T08:00:00Z

interface Notification {
  id: string;
  type: string;
  status: string;
  attempts: number;
  occurredAt: string;
  data: Record<string, unknown>;
}

describeEachStore('event processors', (store) => {
  let app: FastifyInstance;
  let settle: () => Promise<void>;
  beforeAll(async () => {
    await seedDirectory(store().db);
    ({ app, settle } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY, notifyWebhookUrls: ['http://receiver-a.test/hook', 'http://receiver-b.test/hook'] }));
  });
  afterAll(async () => {
    await app.close();
  });

  const get = async <T>(url: string): Promise<T> => {
    const response = await app.inject({ method: 'GET', url, headers: admin });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as T;
  };
  const notifications = async (type: string) => (await get<{ items: Notification[] }>('/api/notifications?limit=500')).items.filter((n) => n.type === type);
  const activity = (kind: string) => store().db.selectFrom('activity').selectAll().where('kind', '=', kind).orderBy('occurred_at').execute();
  const ok = async (kind: string, body: unknown, headers: Record<string, string>) => {
    const response = await postEvent(app, kind, body, headers);
    expect(response.statusCode, JSON.stringify(response.json())).toBe(200);
    await settle();
  };

  it('comment create: comment.created, one mention.created per user even when MentionAt repeats it, activity', async () => {
    await ok('Comment', commentCreate('plan', 'zhang', { guid: 'c1', content: '请看 @李雷 @王小明', userIds: ['lilei', 'wang'], selectionGuid: 's1' }), tokenHeaders('zhang'));
    await ok(
      'MentionAt',
      mentionAt('plan', 'zhang', 'comment', { comment: { guid: 'c1', selectionGuid: 's1', content: '请看', userIds: ['lilei', 'wang'] } }),
      tokenHeaders('zhang'),
    );
    const [created] = await notifications('comment.created');
    expect(created).toMatchObject({
      status: 'pending',
      attempts: 0,
      data: { fileId: 'plan', userId: 'zhang', source: 'comment', commentId: 'c1', content: '请看 @李雷 @王小明', mentionedUserIds: ['lilei', 'wang'] },
    });
    expect(created!.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const mentions = await notifications('mention.created');
    expect(mentions.map((n) => n.data.userId).sort()).toEqual(['lilei', 'wang']);
    expect(mentions[0]!.data).toMatchObject({ fileId: 'plan', byUserId: 'zhang', source: 'comment', sourceId: 'c1' });
    expect((await activity('comment')).map((a) => [a.user_id, a.file_id])).toEqual([['zhang', 'plan']]);
    expect((await activity('mention')).map((a) => [a.user_id, a.related_user_id]).sort()).toEqual([
      ['zhang', 'lilei'],
      ['zhang', 'wang'],
    ]);
    // One delivery row per receiver.
    const rows = await store().db.selectFrom('notification_deliveries').select('receiver').where('notification_id', '=', created!.id).orderBy('receiver').execute();
    expect(rows.map((r) => r.receiver)).toEqual(['http://receiver-a.test/hook', 'http://receiver-b.test/hook']);
  });

  it('discussion and mentions in discussions and body text', async () => {
    await ok(
      'Discussion',
      { kind: 'discussion', type: 'discussion', action: 'create', fileId: 'plan', userId: 'lilei', discussion: { id: 'd1', unixus: T * 1000, content: '讨论' } },
      tokenHeaders('lilei'),
    );
    await ok('MentionAt', mentionAt('plan', 'lilei', 'discussion', { discussion: { id: 'd1', unixus: T * 1000, content: '@张三', userIds: ['zhang'] } }), tokenHeaders('lilei'));
    await ok('MentionAt', mentionAt('secret', 'zhang', 'mention_at', { mentionAt: { guid: 'm1', userId: 'hanmeimei' } }), tokenHeaders('zhang'));
    const discussion = (await notifications('comment.created')).find((n) => n.data.source === 'discussion');
    expect(discussion?.data).toMatchObject({ fileId: 'plan', userId: 'lilei', commentId: 'd1', content: '讨论' });
    const mentions = await notifications('mention.created');
    expect(mentions.find((n) => n.data.source === 'discussion')?.data).toMatchObject({ userId: 'zhang', byUserId: 'lilei', sourceId: 'd1' });
    expect(mentions.find((n) => n.data.source === 'content')?.data).toMatchObject({ fileId: 'secret', userId: 'hanmeimei', byUserId: 'zhang' });
    expect((await activity('discussion')).map((a) => a.user_id)).toEqual(['lilei']);
  });

  it('date reminders: created, moved (time and recipients) and cancelled', async () => {
    await ok(
      'DateMention',
      dateMention('sheet', 'alice', 'create', { id: 'r1', fileId: 'sheet', authorId: 'alice', content: '交报告', remindUserIds: ['bob'], remindAt: '2030-01-01T08:00:00Z' }),
      tokenHeaders('alice'),
    );
    await ok(
      'DateMention',
      dateMention('secret', 'zhang', 'create', { id: 'r2', fileId: 'secret', authorId: 'zhang', content: 'due', remindAt: '2030-02-01T08:00:00.250Z' }),
      tokenHeaders('zhang'),
    );
    const listed = await get<{ items: unknown[] }>('/api/reminders?fileId=sheet');
    expect(listed.items).toEqual([
      { id: 'r1', fileId: 'sheet', authorId: 'alice', content: '交报告', remindUserIds: ['bob'], remindAt: '2030-01-01T08:00:00Z', status: 'scheduled' },
    ]);

    await ok(
      'DateMention',
      dateMention('sheet', 'alice', 'update', { id: 'r1', content: '改期', remindUserIds: ['bob', 'carol'], remindAt: '2030-01-03T09:30:00Z' }),
      tokenHeaders('alice'),
    );
    await ok('DateMention', dateMention('secret', 'zhang', 'remove', { id: 'r2' }), tokenHeaders('zhang'));
    const all = await get<{ items: Array<Record<string, unknown>> }>('/api/reminders');
    expect(all.items).toEqual([
      { id: 'r1', fileId: 'sheet', authorId: 'alice', content: '改期', remindUserIds: ['bob', 'carol'], remindAt: '2030-01-03T09:30:00Z', status: 'scheduled' },
      // A traditional document sends no recipients: the author is reminded.
      { id: 'r2', fileId: 'secret', authorId: 'zhang', content: 'due', remindUserIds: ['zhang'], remindAt: '2030-02-01T08:00:00Z', status: 'cancelled' },
    ]);
  });

  it('file content: version and updatedAt advance, never backwards, with file.updated and edit activity', async () => {
    const directory = new SqlDirectory(store().db);
    await ok('FileContent', fileContent('plan', 'lilei', 5, Date.parse('2024-06-01T10:00:00Z')), signedHeaders('plan'));
    await ok('FileContent', fileContent('plan', 'lilei', 4, Date.parse('2024-05-01T10:00:00Z')), signedHeaders('plan'));
    const file = await directory.getFile('plan');
    expect(file?.updatedAt).toBe('2024-06-01T10:00:00Z');
    const row = await store().db.selectFrom('files').select('version').where('id', '=', 'plan').executeTakeFirstOrThrow();
    expect(row.version).toBe(5);
    const updated = await notifications('file.updated');
    expect(updated.map((n) => n.data)).toContainEqual(expect.objectContaining({ fileId: 'plan', userId: 'lilei', version: 5, updatedAt: '2024-06-01T10:00:00Z' }));
    expect((await activity('edit')).map((a) => [a.user_id, a.file_id, a.occurred_at])).toContainEqual(['lilei', 'plan', '2024-06-01T10:00:00Z']);
  });

  it('collaborators: presence per file, user and client, and open activity', async () => {
    await ok('Collaborator', collaborator('sheet', 'bob', 'enter', 'tab-1', T), signedHeaders('sheet'));
    await ok('Collaborator', collaborator('sheet', 'bob', 'enter', 'phone', T + 60_000), signedHeaders('sheet'));
    await ok('Collaborator', collaborator('sheet', 'alice', 'enter', 'a-1', T + 1000), signedHeaders('sheet'));
    await ok('Collaborator', collaborator('sheet', 'alice', 'leave', 'a-1', T + 5000), signedHeaders('sheet'));
    // A late enter older than the leave does not bring alice back.
    await ok('Collaborator', collaborator('sheet', 'alice', 'enter', 'a-1', T + 2000), signedHeaders('sheet'));
    expect(await get('/api/files/sheet/presence')).toEqual({
      fileId: 'sheet',
      users: [{ userId: 'bob', clients: ['phone', 'tab-1'], since: '2024-03-01T08:00:00Z' }],
    });
    await ok('Collaborator', collaborator('sheet', 'bob', 'leave', 'tab-1', T + 90_000), signedHeaders('sheet'));
    expect(await get('/api/files/sheet/presence')).toEqual({ fileId: 'sheet', users: [{ userId: 'bob', clients: ['phone'], since: '2024-03-01T08:01:00Z' }] });
    expect(await get('/api/files/nobody-here/presence')).toEqual({ fileId: 'nobody-here', users: [] });
    expect(
      (await activity('open'))
        .filter((a) => a.file_id === 'sheet')
        .map((a) => a.user_id)
        .sort(),
    ).toEqual(['alice', 'alice', 'bob', 'bob']);
  });

  it('revisions: a revision log and revision.changed for create, update, delete', async () => {
    await ok('Revision', revision('plan', 'zhang', 'create', 11), tokenHeaders('zhang'));
    await ok('Revision', revision('plan', 'zhang', 'update', 11, { title: 'v11 final' }), tokenHeaders('zhang'));
    await ok('Revision', { ...revision('plan', 'zhang', 'delete', 11), revision: { revisionId: 11, timestamp: T } }, tokenHeaders('zhang'));
    const log = await store().db.selectFrom('revisions').select(['revision_id', 'action', 'title', 'occurred_at']).where('file_id', '=', 'plan').orderBy('seq').execute();
    expect(log).toEqual([
      { revision_id: 11, action: 'create', title: 'v11', occurred_at: '2024-03-01T08:00:00Z' },
      { revision_id: 11, action: 'update', title: 'v11 final', occurred_at: '2024-03-01T08:00:00Z' },
      { revision_id: 11, action: 'delete', title: null, occurred_at: '2024-03-01T08:00:00Z' },
    ]);
    const changed = await notifications('revision.changed');
    expect(changed.map((n) => n.data.action)).toEqual(['create', 'update', 'delete']);
    expect(changed[0]!.data).toMatchObject({ fileId: 'plan', userId: 'zhang', revisionId: 11, title: 'v11', label: 'release', docHistoryId: 'h11' });
  });

  it('System: logged with URL and status, counted, callback.failed without the failing request credentials', async () => {
    await ok('System', systemCallbackError('http://collab.test/files/plan?token=abc', 404), tokenHeaders('zhang'));
    await ok('System', { ...systemCallbackError('http://collab.test/files/plan?token=abc', 404), timestamp: T + 1000 }, signedHeaders('x'));
    const counted = await store().db.selectFrom('callback_failures').selectAll().execute();
    expect(counted).toEqual([expect.objectContaining({ url: 'http://collab.test/files/plan?token=[redacted]', status: 404, count: 2, last_seen_at: '2024-03-01T08:00:01Z' })]);
    const failed = await notifications('callback.failed');
    expect(failed).toHaveLength(2);
    expect(failed[0]!.data).toMatchObject({ url: 'http://collab.test/files/plan?token=[redacted]', status: 404, appId: 'test-app' });
    expect(JSON.stringify(failed)).not.toContain('secret-user-token');
    const events = await get<{ items: Array<{ kind: string; body: Record<string, unknown> }> }>('/api/events?kind=System');
    expect(events.items).toHaveLength(2);
    expect(events.items[0]!.body).toMatchObject({ kind: 'System', type: 'endpointCallback' });
  });
  it('lists events oldest first by file, kind and time, a page at a time', async () => {
    type EventsPage = { items: Array<{ id: number; kind: string; fileId: string; receivedAt: string }>; nextCursor: string | null };
    const all = await get<EventsPage>('/api/events?fileId=plan&limit=500');
    expect(all.items.length).toBeGreaterThan(4);
    expect(all.items.every((item) => item.fileId === 'plan')).toBe(true);
    expect(all.nextCursor).toBeNull();
    const seen: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: EventsPage = await get<EventsPage>(`/api/events?fileId=plan&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(all.items.map((item) => item.id));
    // order=newest (the console): the same events, newest first, a page at a time.
    const newest: number[] = [];
    cursor = '';
    while (cursor !== null) {
      const page: EventsPage = await get<EventsPage>(`/api/events?fileId=plan&order=newest&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      newest.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    }
    expect(newest).toEqual(all.items.map((item) => item.id).reverse());
    const revisions = await get<EventsPage>('/api/events?kind=Revision&fileId=plan');
    expect(revisions.items.map((item) => item.kind)).toEqual(['Revision', 'Revision', 'Revision']);
    expect((await get<EventsPage>('/api/events?since=2999-01-01T00:00:00Z')).items).toEqual([]);
    const badCursor = await app.inject({ method: 'GET', url: '/api/events?cursor=bm9wZQ', headers: admin });
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json()).toMatchObject({ error: { code: 'invalid_cursor' } });
    const badSince = await app.inject({ method: 'GET', url: '/api/events?since=yesterday', headers: admin });
    expect(badSince.statusCode).toBe(400);
  });
});
