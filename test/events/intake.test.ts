import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import {
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

/** Every kind and action of part 6, with the document-kind variants (fields one kind omits are left out). */
const CASES: Array<{ name: string; kind: string; body: Record<string, unknown>; signed?: boolean; action: string }> = [
  // 6.1 Comment
  {
    name: 'comment create, lightweight document (selectionContent, mentions)',
    kind: 'Comment',
    action: 'create',
    body: commentCreate('plan', 'zhang', { guid: 'c1', content: '看这里', userIds: ['lilei'], selectionGuid: 's1', selectionContent: '季度目标' }),
  },
  {
    name: 'comment create, spreadsheet (selectionTitle = sheet id)',
    kind: 'Comment',
    action: 'create',
    body: commentCreate('sheet', 'alice', { guid: 'c2', content: 'check B2', userIds: [], selectionGuid: 's2', selectionTitle: 'sheet1' }),
  },
  {
    name: 'comment create, slides (no mentions, slide page id)',
    kind: 'Comment',
    action: 'create',
    body: commentCreate('plan', 'zhang', { guid: 'c3', content: 'slide note', userIds: [], selectionGuid: 's3', selectionTitle: 'page-2' }),
  },
  {
    name: 'comment create, application table reply (replyTo, replyComment, no userIds)',
    kind: 'Comment',
    action: 'create',
    body: commentCreate('sheet', 'bob', {
      guid: 'c4',
      content: 'agreed',
      replyTo: 'c2',
      replyComment: { userId: 'alice', commentGuid: 'c2', selectionTitle: 'sheet1', selectionGuid: 's2' },
      selectionContent: 'row 3',
    }),
  },
  {
    name: 'comment update, traditional document',
    kind: 'Comment',
    action: 'update',
    body: { kind: 'comment', type: 'comment', action: 'update', fileId: 'secret', userId: 'zhang', comment: { guid: 'c5', selectionGuid: 's5', content: 'new text', userIds: [] } },
  },
  {
    name: 'comment delete',
    kind: 'Comment',
    action: 'delete',
    body: { kind: 'comment', type: 'comment', action: 'delete', fileId: 'plan', userId: 'zhang', deleteComment: { guid: 'c1', selectionGuid: 's1' } },
  },
  {
    name: 'comment closeComments',
    kind: 'Comment',
    action: 'closeComments',
    body: { kind: 'comment', type: 'comment', action: 'closeComments', fileId: 'plan', userId: 'zhang', closeComment: { selectionGuid: 's1' } },
  },
  // 6.2 Discussion
  {
    name: 'discussion create',
    kind: 'Discussion',
    action: 'create',
    body: { kind: 'discussion', type: 'discussion', action: 'create', fileId: 'plan', userId: 'lilei', discussion: { id: 'd1', unixus: T * 1000, content: 'hi', positionId: '' } },
  },
  // 6.3 MentionAt
  {
    name: 'mention in a comment',
    kind: 'MentionAt',
    action: 'create',
    body: mentionAt('plan', 'zhang', 'comment', { comment: { guid: 'c1', selectionGuid: 's1', content: '@李雷', userIds: ['lilei'], selectionContent: 'x' } }),
  },
  {
    name: 'mention in a discussion',
    kind: 'MentionAt',
    action: 'create',
    body: mentionAt('plan', 'lilei', 'discussion', { discussion: { id: 'd2', unixus: T * 1000, content: '@张三', userIds: ['zhang'] } }),
  },
  {
    name: 'mention in the body text, lightweight document',
    kind: 'MentionAt',
    action: 'create',
    body: mentionAt('plan', 'zhang', 'mention_at', { mentionAt: { guid: 'm1', userId: 'wang', content: '请 @王小明' } }),
  },
  {
    name: 'mention in the body text, traditional document (no content)',
    kind: 'MentionAt',
    action: 'create',
    body: mentionAt('secret', 'zhang', 'mention_at', { mentionAt: { guid: 'm2', userId: 'lilei' } }),
  },
  // 6.4 DateMention
  {
    name: 'date reminder create, spreadsheet (empty content)',
    kind: 'DateMention',
    action: 'create',
    body: dateMention('sheet', 'alice', 'create', {
      id: 'r1',
      fileId: 'sheet',
      authorId: 'alice',
      content: '',
      remindUserIds: ['bob'],
      remindAt: '2030-01-01T08:00:00Z',
      positionId: 'p',
    }),
  },
  {
    name: 'date reminder create, traditional document (no remindUserIds)',
    kind: 'DateMention',
    action: 'create',
    body: dateMention('secret', 'zhang', 'create', { id: 'r2', fileId: 'secret', authorId: 'zhang', content: 'due', remindAt: '2030-01-01T08:00:00.000Z' }),
  },
  {
    name: 'date reminder update',
    kind: 'DateMention',
    action: 'update',
    body: dateMention('sheet', 'alice', 'update', { id: 'r1', content: 'moved', remindUserIds: ['bob', 'alice'], remindAt: '2030-01-02T08:00:00Z', positionId: 'p' }),
  },
  {
    name: 'date reminder remove',
    kind: 'DateMention',
    action: 'remove',
    body: dateMention('secret', 'zhang', 'remove', { id: 'r2' }),
  },
  // 6.5 to 6.8
  { name: 'file content update', kind: 'FileContent', action: 'update', signed: true, body: fileContent('plan', 'lilei', 7, T) },
  { name: 'collaborator enter', kind: 'Collaborator', action: 'enter', signed: true, body: collaborator('plan', 'lilei', 'enter', 'tab-1', T) },
  { name: 'collaborator leave', kind: 'Collaborator', action: 'leave', signed: true, body: collaborator('plan', 'lilei', 'leave', 'tab-1', T + 1000) },
  { name: 'revision create', kind: 'Revision', action: 'create', body: revision('plan', 'zhang', 'create', 1) },
  { name: 'revision update', kind: 'Revision', action: 'update', body: revision('plan', 'zhang', 'update', 1, { title: 'v1 final' }) },
  {
    name: 'revision delete (timestamp beside revision)',
    kind: 'Revision',
    action: 'delete',
    body: { ...revision('plan', 'zhang', 'delete', 1), timestamp: T, revision: { revisionId: 1 } },
  },
  { name: 'System callback error', kind: 'System', action: 'endpointCallback', body: systemCallbackError('http://collab.test/files/plan', 404) },
];

describeEachStore('POST /events intake', (store) => {
  let app: FastifyInstance;
  let settle: () => Promise<void>;
  const countEvents = async () =>
    Number(
      (
        await store()
          .db.selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const stored = (raw: string) => store().db.selectFrom('events').selectAll().where('body', '=', raw).executeTakeFirstOrThrow();

  beforeAll(async () => {
    await seedDirectory(store().db);
    ({ app, settle } = await buildEventApp(store()));
  });
  afterAll(async () => {
    await app.close();
  });

  describe('acknowledges every kind and action of part 6 once logged, and processes it behind the answer', () => {
    for (const testCase of CASES) {
      it(testCase.name, async () => {
        const fileId = (testCase.body.fileId as string | undefined) ?? 'none';
        const headers = testCase.signed ? signedHeaders(fileId) : tokenHeaders((testCase.body.userId as string | undefined) ?? 'zhang');
        const raw = JSON.stringify(testCase.body);
        const response = await postEvent(app, testCase.kind, raw, headers);
        expect(response.statusCode, JSON.stringify(response.json())).toBe(200);
        expect(response.json()).toEqual({});
        // Answered means logged, as received; the effects come from the log behind the answer.
        expect(await stored(raw)).toMatchObject({
          kind: testCase.kind,
          action: testCase.action,
          outcome: 'pending',
          file_id: testCase.body.fileId ?? null,
          // The actor: the token's user (the body's own userId, where it has one, is the same).
          user_id: testCase.body.userId ?? (testCase.signed ? null : 'zhang'),
          credential: testCase.signed ? 'signature' : 'token',
        });
        await settle();
        const row = await stored(raw);
        expect({ outcome: row.outcome, problem: row.problem }).toEqual({ outcome: 'processed', problem: null });
        expect(row.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        expect(Number(row.effects_ms)).toBeGreaterThanOrEqual(Number(row.received_ms));
      });
    }
  });

  it('refuses a body whose kind contradicts the header, storing nothing', async () => {
    const before = await countEvents();
    const body = commentCreate('plan', 'zhang', { guid: 'x1', content: 'c' });
    const response = await postEvent(app, 'Discussion', body, tokenHeaders('zhang'));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'event_kind_mismatch' } });
    // An unknown header kind with the body of a known kind contradicts it too.
    expect((await postEvent(app, 'Whiteboard', body, tokenHeaders('zhang'))).statusCode).toBe(400);
    expect(await countEvents()).toBe(before);
  });

  it('refuses a body that is not JSON, storing nothing', async () => {
    const before = await countEvents();
    const bad = await postEvent(app, 'Comment', '{"kind":"comment",', tokenHeaders('zhang'));
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_json' } });
    const empty = await app.inject({ method: 'POST', url: '/events', headers: { 'x-platform-sdk-event': 'Comment', ...tokenHeaders('zhang') } });
    expect(empty.statusCode).toBe(400);
    expect(await countEvents()).toBe(before);
  });

  it('acknowledges and keeps a body of any other shape, as unprocessed with the reason', async () => {
    const shapes = [
      { kind: 'Comment', body: { kind: 'comment', action: 'create', fileId: 'plan', userId: 'zhang' }, problem: 'comment is missing' },
      { kind: 'FileContent', body: fileContent('plan', 'zhang', 'seven' as unknown as number, T), problem: 'fileContent.version "seven" is not a whole number', signed: true },
      {
        kind: 'DateMention',
        body: dateMention('plan', 'zhang', 'create', { id: 'r9', content: '', remindAt: '2030-13-45T99:00:00Z' }),
        problem: 'createData.remindAt "2030-13-45T99:00:00Z" is not a real time',
      },
      { kind: 'Comment', body: ['not', 'an', 'object'], problem: 'body is not a JSON object' },
    ];
    for (const shape of shapes) {
      const headers = shape.signed ? signedHeaders('plan') : tokenHeaders('zhang');
      const response = await postEvent(app, shape.kind, shape.body, headers);
      expect(response.statusCode, JSON.stringify(response.json())).toBe(200);
    }
    await settle();
    for (const shape of shapes) {
      const row = await stored(JSON.stringify(shape.body));
      expect(row.outcome).toBe('unprocessed');
      expect(row.problem).toContain(shape.problem);
    }
    // A JSON push labelled with another content type and one without the kind header are read all the same.
    const plain = await app.inject({
      method: 'POST',
      url: '/events',
      headers: { 'content-type': 'text/plain', 'x-platform-sdk-event': 'Comment', ...tokenHeaders('zhang') },
      payload: JSON.stringify(commentCreate('plan', 'zhang', { guid: 'plain-1', content: 'text/plain' })),
    });
    expect(plain.statusCode).toBe(200);
    const noHeader = await app.inject({
      method: 'POST',
      url: '/events',
      headers: { 'content-type': 'application/json', ...tokenHeaders('zhang') },
      payload: JSON.stringify(commentCreate('plan', 'zhang', { guid: 'no-header-1', content: 'no header' })),
    });
    expect(noHeader.statusCode).toBe(200);
    await settle();
    const kinds = await store().db.selectFrom('events').select(['kind', 'outcome']).where('body', 'like', '%"guid":"%-1"%').where('body', 'like', '%header%').execute();
    expect(kinds).toEqual([{ kind: 'Comment', outcome: 'processed' }]);
  });

  it('refuses missing and wrong credentials, storing nothing', async () => {
    const before = await countEvents();
    const comment = commentCreate('plan', 'zhang', { guid: 'a1', content: 'c' });
    const noToken = await postEvent(app, 'Comment', comment, {});
    expect(noToken.statusCode).toBe(401);
    expect(noToken.json()).toMatchObject({ error: { code: 'token_missing' } });
    const forged = await postEvent(app, 'Comment', comment, { 'x-platform-token': `${tokenHeaders('zhang')['x-platform-token']}x` });
    expect(forged.statusCode).toBe(401);
    // A token of another secret is not authentic, expired or not.
    const signatureForToken = await postEvent(app, 'Comment', comment, signedHeaders('plan'));
    expect(signatureForToken.statusCode).toBe(401);

    const content = fileContent('plan', 'lilei', 99, T);
    const unsigned = await postEvent(app, 'FileContent', content, {});
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json()).toMatchObject({ error: { code: 'signature_missing' } });
    const otherFile = await postEvent(app, 'FileContent', content, signedHeaders('sheet'));
    expect(otherFile.statusCode).toBe(401);
    expect(otherFile.json()).toMatchObject({ error: { code: 'signature_invalid', message: expect.stringContaining('another file') } });
    const system = await postEvent(app, 'System', systemCallbackError('http://collab.test/x', 500), {});
    expect(system.statusCode).toBe(401);
    expect(system.json()).toMatchObject({ error: { code: 'credential_missing' } });
    expect(await countEvents()).toBe(before);
  });

  it('accepts an authentic token that expired within 7 days, refuses an older one', async () => {
    const dayMs = 86_400_000;
    const late = commentCreate('plan', 'zhang', { guid: 'late-1', content: 'late' });
    const recent = await postEvent(app, 'Comment', late, tokenHeaders('zhang', 3600, Date.now() - 2 * dayMs));
    expect(recent.statusCode).toBe(200);
    expect((await stored(JSON.stringify(late))).credential).toBe('token-expired');
    const ancient = await postEvent(app, 'Comment', commentCreate('plan', 'zhang', { guid: 'late-2', content: 'x' }), tokenHeaders('zhang', 3600, Date.now() - 9 * dayMs));
    expect(ancient.statusCode).toBe(401);
    expect(ancient.json()).toMatchObject({ error: { code: 'token_expired' } });
  });

  it('System accepts either credential', async () => {
    expect((await postEvent(app, 'System', systemCallbackError('http://collab.test/a', 500), tokenHeaders('zhang'))).statusCode).toBe(200);
    expect((await postEvent(app, 'System', systemCallbackError('http://collab.test/b', 500), signedHeaders('any'))).statusCode).toBe(200);
  });

  it('acknowledges a duplicate delivery without a second effect', async () => {
    const body = JSON.stringify(commentCreate('plan', 'zhang', { guid: 'dup-1', content: 'once', userIds: ['wang'] }));
    const first = await postEvent(app, 'Comment', body, tokenHeaders('zhang'));
    await settle();
    // The same event again, even with a freshly minted token, after its effects were derived.
    const second = await postEvent(app, 'Comment', body, tokenHeaders('zhang', 7200));
    await settle();
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(second.json()).toEqual({});
    const events = await store().db.selectFrom('events').select('id').where('body', '=', body).execute();
    expect(events).toHaveLength(1);
    const notifications = await store().db.selectFrom('notifications').select('type').where('event_id', '=', events[0]!.id).orderBy('type').execute();
    expect(notifications.map((n) => n.type)).toEqual(['comment.created', 'mention.created']);
  });

  it('answers concurrent events after their group commit, each stored once even when copies arrive together', async () => {
    const copies = JSON.stringify(fileContent('sheet', 'bob', 42, T));
    const distinct = Array.from({ length: 20 }, (_, index) => JSON.stringify(fileContent('teamdoc', 'carol', 100 + index, T + index)));
    const responses = await Promise.all([
      ...distinct.map((body) => postEvent(app, 'FileContent', body, signedHeaders('teamdoc'))),
      ...Array.from({ length: 5 }, () => postEvent(app, 'FileContent', copies, signedHeaders('sheet'))),
    ]);
    expect(responses.map((r) => r.statusCode)).toEqual(Array(25).fill(200));
    const logged = await store()
      .db.selectFrom('events')
      .select('body')
      .where('body', 'in', [...distinct, copies])
      .execute();
    expect(logged).toHaveLength(21);
    await settle();
    const version = await store().db.selectFrom('files').select('version').where('id', '=', 'teamdoc').executeTakeFirstOrThrow();
    expect(version.version).toBe(119);
    const updates = await store().db.selectFrom('notifications').select('id').where('type', '=', 'file.updated').where('data', 'like', '%"fileId":"sheet"%').execute();
    expect(updates).toHaveLength(1);
  });

  it('stores and acknowledges unknown kinds and actions, kept as unprocessed without effects', async () => {
    const whiteboard = { kind: 'whiteboard', action: 'draw', fileId: 'plan', userId: 'zhang' };
    const unknownKind = await postEvent(app, 'Whiteboard', whiteboard, tokenHeaders('zhang'));
    expect(unknownKind.statusCode).toBe(200);
    const resolve = { kind: 'comment', type: 'comment', action: 'resolve', fileId: 'plan', userId: 'zhang', resolveComment: { guid: 'c1' } };
    const unknownAction = await postEvent(app, 'Comment', resolve, tokenHeaders('zhang'));
    expect(unknownAction.statusCode).toBe(200);
    await settle();
    const rows = await store()
      .db.selectFrom('events')
      .select(['kind', 'action', 'outcome', 'problem', 'id'])
      .where('body', 'in', [JSON.stringify(whiteboard), JSON.stringify(resolve)])
      .orderBy('id')
      .execute();
    expect(rows.map(({ kind, action, outcome, problem }) => ({ kind, action, outcome, problem }))).toEqual([
      { kind: 'Whiteboard', action: 'draw', outcome: 'unprocessed', problem: 'kind "Whiteboard" is not a kind collab-host knows' },
      { kind: 'Comment', action: 'resolve', outcome: 'unprocessed', problem: 'action "resolve" is not one collab-host knows for Comment' },
    ]);
    const derived = await store()
      .db.selectFrom('notifications')
      .select('id')
      .where(
        'event_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    expect(derived).toEqual([]);
  });
});

describeEachStore('POST /events with SIGNATURE_REQUIRED=false', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ app } = await buildEventApp(store(), { signatureRequired: false }));
  });
  afterAll(async () => {
    await app.close();
  });

  it('accepts an unsigned signed-kind event but still refuses a wrong signature', async () => {
    const unsigned = await postEvent(app, 'Collaborator', collaborator('plan', 'lilei', 'enter', 'tab-9', T), {});
    expect(unsigned.statusCode).toBe(200);
    const row = await store().db.selectFrom('events').select('credential').executeTakeFirstOrThrow();
    expect(row.credential).toBe('unsigned');
    const wrong = await postEvent(app, 'Collaborator', collaborator('plan', 'lilei', 'enter', 'tab-8', T), signedHeaders('sheet'));
    expect(wrong.statusCode).toBe(401);
  });
});
