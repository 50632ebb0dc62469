import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import {
  ADMIN_KEY,
  adminGet,
  buildEventApp,
  collaborator,
  commentCreate,
  dateMention,
  fileContent,
  postEvent,
  revision,
  signedHeaders,
  tokenHeaders,
  type ListedEvent,
} from './event-fixtures.js';

const T = 1_709_280_000_000;

/**
 * Issue 10, findings 3 to 5: no secret leaves the log, no number or NUL costs a 5xx on either store (the
 * body is kept as received and what cannot be interpreted is flagged), and times are real or flagged.
 */
describeEachStore('event values at the edges', (store) => {
  let app: FastifyInstance;
  let settle: () => Promise<void>;

  beforeAll(async () => {
    await seedDirectory(store().db);
    ({ app, settle } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY }));
  });
  afterAll(async () => {
    await app.close();
  });

  /** Posts raw text; expects 200, derives, and returns the logged row. */
  const logged = async (kind: string, raw: string, headers: Record<string, string>) => {
    const response = await postEvent(app, kind, raw, headers);
    expect(response.statusCode, JSON.stringify(response.json())).toBe(200);
    await settle();
    return store().db.selectFrom('events').selectAll().where('body', '=', raw).executeTakeFirstOrThrow();
  };

  it('redacts user-info and credentials of a System event in the notification, the failure counts and the listing', async () => {
    const body = {
      kind: 'System',
      type: 'endpointCallback',
      appId: 'test-app',
      timestamp: T,
      request: {
        headers: { 'X-Platform-Token': 'user-token-abc', 'X-Platform-Signature': 'sig-def', Authorization: 'Bearer live-key', Accept: 'application/json' },
        url: 'https://user:pass@oa.example.com/files/plan?token=abc&signature=s1&lang=zh',
        body: '{"access_token":"tok-123","fileId":"plan"}',
      },
      response: { headers: {}, status: 404, body: 'not found' },
      errorMessage: 'GET https://user:pass@oa.example.com/files/plan?token=abc failed: 404 (password=hunter2, api_key=k9)',
    };
    const raw = JSON.stringify(body);
    const row = await logged('System', raw, signedHeaders('plan'));
    expect(row.body).toBe(raw); // the log keeps the event as received

    const secrets = ['user:pass', 'abc', 's1', 'sig-def', 'live-key', 'tok-123', 'hunter2', 'k9', 'user-token'];
    const failed = await store().db.selectFrom('notifications').select('data').where('event_id', '=', row.id).executeTakeFirstOrThrow();
    expect(JSON.parse(failed.data)).toMatchObject({
      url: 'https://[redacted]@oa.example.com/files/plan?token=[redacted]&signature=[redacted]&lang=zh',
      errorMessage: 'GET https://[redacted]@oa.example.com/files/plan?token=[redacted] failed: 404 (password=[redacted], api_key=[redacted])',
      status: 404,
    });
    const counted = await store().db.selectFrom('callback_failures').selectAll().execute();
    const listed = await adminGet<{ items: ListedEvent[] }>(app, '/api/events?kind=System');
    const shown = listed.items.find((item) => item.id === row.id)!;
    expect(shown.body).toMatchObject({ request: { headers: { 'X-Platform-Token': '[redacted]', Authorization: '[redacted]', Accept: 'application/json' } } });
    for (const secret of secrets) {
      expect(failed.data).not.toContain(secret);
      expect(JSON.stringify(counted)).not.toContain(secret);
      expect(JSON.stringify(shown)).not.toContain(secret);
    }
  });

  it('numbers out of range are kept as received, interpreted where they can be, flagged as unprocessed', async () => {
    const bigRevision = JSON.stringify(revision('plan', 'zhang', 'create', 1e20));
    const revisionRow = await logged('Revision', bigRevision, tokenHeaders('zhang'));
    expect(revisionRow).toMatchObject({ outcome: 'unprocessed', problem: expect.stringContaining('revision.revisionId 100000000000000000000 is out of range') });
    expect(await store().db.selectFrom('revisions').select('seq').where('event_id', '=', revisionRow.id).execute()).toEqual([]);

    const bigVersion = JSON.stringify(fileContent('plan', 'lilei', 2147483648, T));
    const versionRow = await logged('FileContent', bigVersion, signedHeaders('plan'));
    expect(versionRow).toMatchObject({ outcome: 'unprocessed', problem: expect.stringContaining('fileContent.version 2147483648 is out of range') });
    const file = await store().db.selectFrom('files').select('version').where('id', '=', 'plan').executeTakeFirstOrThrow();
    expect(file.version).toBe(0);
    // The edit itself is still known: lilei's activity on plan.
    expect(await store().db.selectFrom('activity').select('kind').where('event_id', '=', versionRow.id).execute()).toEqual([{ kind: 'edit' }]);

    const fraction = JSON.stringify(collaborator('plan', 'lilei', 'enter', 'tab-frac', 1.5));
    const fractionRow = await logged('Collaborator', fraction, signedHeaders('plan'));
    expect(fractionRow).toMatchObject({ outcome: 'unprocessed', problem: 'collaboratorChanged.timestamp 1.5 is not a whole number' });
    // Presence is kept, timed by the arrival.
    const presence = await adminGet<{ users: Array<{ userId: string; clients: string[] }> }>(app, '/api/files/plan/presence');
    expect(presence.users).toEqual([expect.objectContaining({ userId: 'lilei', clients: ['tab-frac'] })]);
  });

  it('an escaped backslash before u0000 is text, not a NUL', async () => {
    const raw = '{"kind":"comment","type":"comment","action":"create","fileId":"plan","userId":"zhang","comment":{"guid":"bs-1","content":"C:\\\\u0000dir"}}';
    const row = await logged('Comment', raw, tokenHeaders('zhang'));
    expect(row.outcome).toBe('processed');
    const created = await store().db.selectFrom('notifications').select('data').where('dedupe_key', '=', 'comment:plan:bs-1').executeTakeFirstOrThrow();
    expect(JSON.parse(created.data).content).toBe('C:\\u0000dir');
  });

  it('a real NUL in fields kept in columns costs no 5xx: the body is kept, the fields name nothing', async () => {
    const nulFile = '{"kind":"comment","type":"comment","action":"create","fileId":"pl\\u0000an","userId":"zhang","comment":{"guid":"nul-1","content":"x"}}';
    const refused = await postEvent(app, 'Comment', nulFile, tokenHeaders('zhang'));
    expect(refused.statusCode).toBe(403);
    const nulUser = '{"kind":"comment","type":"comment","action":"create","fileId":"plan","userId":"zh\\u0000ang","comment":{"guid":"nul-2","content":"x"}}';
    expect((await postEvent(app, 'Comment', nulUser, tokenHeaders('zhang'))).statusCode).toBe(403);
    const nulContent =
      '{"kind":"comment","type":"comment","action":"create","fileId":"plan","userId":"zhang","comment":{"guid":"nul\\u0000-3","content":"a\\u0000b","userIds":["li\\u0000lei"]}}';
    const content = await logged('Comment', nulContent, tokenHeaders('zhang'));
    expect(content.outcome).toBe('processed');
    const signedNul = '{"kind":"fileContent","type":"fileContent","action":"update","fileId":"x\\u0000y","userId":"lilei","fileContent":{"version":1,"timestamp":1709280000000}}';
    expect((await postEvent(app, 'FileContent', signedNul, signedHeaders('x\u0000y'))).statusCode).toBe(200);
    await settle();
    const rows = await store()
      .db.selectFrom('events')
      .select(['body', 'file_id', 'user_id', 'outcome'])
      .where('body', 'in', [nulFile, nulUser, nulContent, signedNul])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { body: nulFile, file_id: 'pl\uFFFDan', user_id: 'zhang', outcome: 'refused' },
      { body: nulUser, file_id: 'plan', user_id: 'zh\uFFFDang', outcome: 'refused' },
      { body: nulContent, file_id: 'plan', user_id: 'zhang', outcome: 'processed' },
      { body: signedNul, file_id: 'x\uFFFDy', user_id: 'lilei', outcome: 'processed' },
    ]);
    // A NUL in a query is refused alike on both stores (src/http/input-guard.ts); the stored form is searchable.
    const withNul = await app.inject({ method: 'GET', url: '/api/events?fileId=pl%00an&outcome=refused', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(withNul.statusCode).toBe(400);
    const listed = await app.inject({
      method: 'GET',
      url: `/api/events?fileId=${encodeURIComponent('pl\uFFFDan')}&outcome=refused`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(listed.statusCode).toBe(200);
    expect((listed.json() as { items: ListedEvent[] }).items.map((item) => item.fileId)).toEqual(['pl\uFFFDan']);
    const reminders = await app.inject({ method: 'GET', url: '/api/reminders?fileId=%00', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(reminders.statusCode).toBe(400);
  });

  it('remindAt that is not a real time is flagged; years 0000 and 9999 with offsets come out in the interface format or are flagged', async () => {
    const cases: Array<{ remindAt: string; stored?: string; problem?: string }> = [
      { remindAt: '2030-02-30T10:00:00Z', problem: 'createData.remindAt "2030-02-30T10:00:00Z" is not a real time' },
      { remindAt: '2030-04-31T10:00:00+08:00', problem: 'is not a real time' },
      { remindAt: '2030-01-01T24:00:00Z', problem: 'is not a real time' },
      { remindAt: '0000-01-01T00:30:00+01:00', problem: 'is outside the years 0000 to 9999 in UTC' },
      { remindAt: '9999-12-31T23:30:00-01:00', problem: 'is outside the years 0000 to 9999 in UTC' },
      { remindAt: '0000-01-01T01:00:00+01:00', stored: '0000-01-01T00:00:00Z' },
      { remindAt: '9999-12-31T22:59:59.999-01:00', stored: '9999-12-31T23:59:59Z' },
      { remindAt: '2024-02-29T12:00:00+0530', stored: '2024-02-29T06:30:00Z' },
    ];
    for (const [index, testCase] of cases.entries()) {
      const body = JSON.stringify(dateMention('plan', 'zhang', 'create', { id: `edge-${index}`, content: testCase.remindAt, remindAt: testCase.remindAt }));
      const row = await logged('DateMention', body, tokenHeaders('zhang'));
      if (testCase.problem) {
        expect(row.outcome, testCase.remindAt).toBe('unprocessed');
        expect(row.problem).toContain(testCase.problem);
      } else expect(row.outcome, testCase.remindAt).toBe('processed');
    }
    const listed = await adminGet<{ items: Array<{ id: string; remindAt: string }> }>(app, '/api/reminders?fileId=plan&limit=500');
    expect(listed.items.filter((item) => item.id.startsWith('edge-')).map((item) => [item.id, item.remindAt])).toEqual([
      ['edge-5', '0000-01-01T00:00:00Z'],
      ['edge-6', '9999-12-31T23:59:59Z'],
      ['edge-7', '2024-02-29T06:30:00Z'],
    ]);
  });

  it('a comment with nothing to key it is kept unprocessed', async () => {
    const noGuid = JSON.stringify(commentCreate('plan', 'zhang', { content: 'no guid' }));
    expect(await logged('Comment', noGuid, tokenHeaders('zhang'))).toMatchObject({ outcome: 'unprocessed', problem: 'comment.guid is missing' });
  });
});
