import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { AuditTrail } from '../../src/audit/audit-trail.js';
import { auditIndex } from '../../src/store/audit/audit-index.js';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { formatTime } from '../../src/directory/time.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
const ALL = ['readable', 'commentable', 'editable', 'copyable', 'exportable', 'manageable'];
const T0 = Date.parse('2026-03-01T09:00:00Z');

describeEachStore('audit trail', (store) => {
  let app: FastifyInstance;
  let audit: AuditTrail;
  let now = T0;
  beforeAll(async () => {
    await seedDirectory(store().db);
    audit = new AuditTrail(store().db, { now: () => now });
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY }, { audit });
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await audit.flush({ endWindows: true });
    await store().db.deleteFrom('audit_log').execute();
    // With every row gone SQLite numbers rows from 1 again, below the index's mark (retention always keeps the mark's row).
    await store().db.deleteFrom('audit_file_ids').execute();
    await store().db.deleteFrom('audit_actor_ids').execute();
    await auditIndex.restart(store().db);
    now = T0;
  });

  const list = async (query: string) => {
    const response = await app.inject({ method: 'GET', url: `/api/audit${query}`, headers: admin });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { items: Array<Record<string, unknown>>; nextCursor: string | null };
  };
  const rows = async () =>
    Number(
      (
        await store()
          .db.selectFrom('audit_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('records a document open with the user, the file and the permissions decided, buffered until a flush', async () => {
    expect((await app.inject({ method: 'GET', url: '/files/plan', headers: asUser('zhang') })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/files/secret', headers: asUser('lilei') })).statusCode).toBe(200);
    // Not written per request: held in memory until the next flush.
    expect(await rows()).toBe(0);
    expect(audit.buffered()).toBe(2);
    await audit.flush();
    const { items } = await list('?kind=file_access');
    expect(items).toEqual([
      {
        id: expect.any(Number),
        at: '2026-03-01T09:00:00Z',
        kind: 'file_access',
        actorId: 'zhang',
        credential: 'user_token',
        fileId: 'plan',
        action: 'GET /files/:fileId',
        permissions: ALL,
        details: null,
      },
      // Refused: no permission at all.
      expect.objectContaining({ actorId: 'lilei', fileId: 'secret', permissions: [] }),
    ]);
  });

  it('records a signed callback with the platform signature as the credential', async () => {
    const config = makeTestConfig();
    const signature = mintSignature({ appId: config.appId, appSecret: config.appSecret }, { ttlSeconds: 120, fileId: 'plan', userId: 'lilei' });
    const response = await app.inject({
      method: 'GET',
      url: '/admin/files/plan/by-user-id?userId=lilei',
      headers: { 'x-platform-credential-type': '3', 'x-platform-signature': signature },
    });
    expect(response.statusCode).toBe(200);
    await audit.flush();
    const [entry] = (await list('?fileId=plan')).items;
    expect(entry).toMatchObject({
      kind: 'file_access',
      actorId: 'lilei',
      credential: 'platform_signature',
      action: 'GET /admin/files/:fileId/by-user-id',
      permissions: ['readable', 'commentable', 'editable', 'copyable', 'exportable'],
    });
  });

  it('records a management write with the admin key, and the directory change it made', async () => {
    const response = await app.inject({ method: 'PUT', url: '/api/teams/audited', headers: admin, payload: { name: 'Audited' } });
    expect(response.statusCode).toBe(201);
    await audit.flush();
    const change = (await list('?kind=directory_change')).items;
    // Written in the change's transaction, on the store's clock (not the trail's).
    expect(change).toEqual([
      {
        id: expect.any(Number),
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        kind: 'directory_change',
        actorId: null,
        credential: 'api',
        fileId: null,
        action: 'teams created',
        permissions: null,
        details: { id: 'audited' },
      },
    ]);
    const management = (await list('?kind=management')).items;
    expect(management).toEqual([
      {
        id: expect.any(Number),
        at: '2026-03-01T09:00:00Z',
        kind: 'management',
        actorId: null,
        credential: 'admin_key',
        fileId: null,
        action: 'PUT /api/teams/:teamId',
        permissions: null,
        details: { status: 201, params: { teamId: 'audited' } },
      },
    ]);
    // A refused write changed nothing and is not a management change.
    expect((await app.inject({ method: 'PUT', url: '/api/teams/bad', headers: admin, payload: { name: 5 } })).statusCode).toBe(400);
    await audit.flush();
    expect((await list('?kind=management')).items).toHaveLength(1);
  });

  it('filters by time, actor, file and kind, and pages with a cursor', async () => {
    for (const [minutes, user, file] of [
      [0, 'zhang', 'plan'],
      [1, 'lilei', 'plan'],
      [2, 'zhang', 'sheet'],
      [3, 'zhang', 'plan'],
    ] as const) {
      now = T0 + minutes * 60_000;
      await app.inject({ method: 'GET', url: `/files/${file}`, headers: asUser(user) });
    }
    await audit.flush();
    const at = (minutes: number) => formatTime(T0 + minutes * 60_000);
    expect((await list('?actorId=zhang')).items.map((item) => item.at)).toEqual([at(0), at(2), at(3)]);
    expect((await list('?fileId=plan&actorId=zhang')).items.map((item) => item.at)).toEqual([at(0), at(3)]);
    expect((await list(`?since=${at(1)}&until=${at(3)}`)).items.map((item) => item.actorId)).toEqual(['lilei', 'zhang']);
    expect((await list('?kind=management')).items).toEqual([]);
    const first = await list('?limit=3');
    expect(first.items).toHaveLength(3);
    const second = await list(`?limit=3&cursor=${first.nextCursor!}`);
    expect(second.items.map((item) => item.at)).toEqual([at(3)]);
    expect(second.nextCursor).toBeNull();
  });

  it('records the first of identical access decisions at once and the rest of its minute as one entry with their count', async () => {
    const open = (url: string, user: string) => app.inject({ method: 'GET', url, headers: asUser(user) });
    expect((await open('/files/plan', 'zhang')).statusCode).toBe(200);
    // The first decision is written at the next flush, not when its minute ends.
    await audit.flush();
    expect((await list('?kind=file_access')).items).toEqual([expect.objectContaining({ actorId: 'zhang', fileId: 'plan', details: null })]);
    for (let i = 0; i < 2; i += 1) expect((await open('/files/plan', 'zhang')).statusCode).toBe(200);
    expect((await open('/files/plan/collaborators', 'zhang')).statusCode).toBe(200);
    expect((await open('/files/plan', 'lilei')).statusCode).toBe(200);
    now = T0 + 59_000;
    expect((await open('/files/plan', 'zhang')).statusCode).toBe(200);
    // Lilei's first decision, and zhang's four repeats gathered into one entry still to come.
    expect(audit.buffered()).toBe(2);
    now = T0 + 60_000;
    expect((await open('/files/plan', 'zhang')).statusCode).toBe(200);
    await audit.flush();
    expect((await list('?kind=file_access')).items).toEqual([
      expect.objectContaining({ at: '2026-03-01T09:00:00Z', actorId: 'zhang', fileId: 'plan', action: 'GET /files/:fileId', details: null }),
      expect.objectContaining({ at: '2026-03-01T09:00:00Z', actorId: 'lilei', fileId: 'plan', details: null }),
      {
        id: expect.any(Number),
        at: '2026-03-01T09:00:00Z',
        kind: 'file_access',
        actorId: 'zhang',
        credential: 'user_token',
        fileId: 'plan',
        action: 'GET /files/:fileId',
        permissions: ALL,
        details: { repeated: 4, lastAt: '2026-03-01T09:00:59Z', actions: ['GET /files/:fileId', 'GET /files/:fileId/collaborators'] },
      },
      expect.objectContaining({ at: '2026-03-01T09:01:00Z', actorId: 'zhang', fileId: 'plan', details: null }),
    ]);
  });

  it('records each decision when coalescing is off, and a refused one apart from a granted one', async () => {
    const each = new AuditTrail(store().db, { now: () => now, coalesceMs: 0 });
    const decision = { kind: 'file_access', actorId: 'zhang', credential: 'user_token', fileId: 'plan', action: 'GET /files/:fileId', details: null } as const;
    each.record({ ...decision, permissions: ALL });
    each.record({ ...decision, permissions: ALL });
    expect(each.buffered()).toBe(2);
    await each.close();
    const gathered = new AuditTrail(store().db, { now: () => now });
    gathered.record({ ...decision, permissions: ALL });
    gathered.record({ ...decision, permissions: [] });
    gathered.record({ ...decision, credential: 'platform_signature', permissions: ALL });
    gathered.record({ ...decision, permissions: ALL });
    expect(gathered.buffered()).toBe(4);
    expect(gathered.counts).toMatchObject({ recorded: 3, coalesced: 1 });
    await gathered.close();
  });

  it('gathers only decisions alike in every part: ids that would run together, or a null actor, stay apart', async () => {
    const gathered = new AuditTrail(store().db, { now: () => now });
    const decision = { kind: 'file_access', credential: 'user_token', action: 'GET /files/:fileId', details: null, permissions: ALL } as const;
    const alike = [
      { actorId: 'a|b', fileId: 'c' },
      { actorId: 'a', fileId: 'b|c' },
      { actorId: '3:a', fileId: 'b' },
      { actorId: null, fileId: '1:-|b' },
      { actorId: '-', fileId: 'b' },
      { actorId: null, fileId: null },
    ];
    for (const parts of alike) gathered.record({ ...decision, ...parts });
    expect(gathered.counts).toMatchObject({ recorded: alike.length, coalesced: 0 });
    for (const parts of alike) gathered.record({ ...decision, ...parts });
    expect(gathered.counts).toMatchObject({ recorded: alike.length, coalesced: alike.length });
    await gathered.close();
    expect(await rows()).toBe(alike.length * 2);
  });

  it('gathers at most maxGathering decisions: past it the oldest window ends early and its repeats are written', async () => {
    const gathered = new AuditTrail(store().db, { now: () => now, maxGathering: 2 });
    const decision = { kind: 'file_access', credential: 'user_token', action: 'GET /files/:fileId', details: null, permissions: ALL } as const;
    const open = (actorId: string) => gathered.record({ ...decision, actorId, fileId: 'plan' });
    open('a');
    open('b');
    open('a');
    open('b');
    open('b');
    // A third decision ends a's window (the oldest, its repeat written after c), then b's when a opens again.
    open('c');
    open('a');
    open('b');
    expect(gathered.counts).toMatchObject({ recorded: 5, coalesced: 3 });
    await gathered.close();
    const written = await store().db.selectFrom('audit_log').select(['actor_id', 'details']).orderBy('id').execute();
    expect(written.map((row) => [row.actor_id, row.details === null ? null : (JSON.parse(row.details) as { repeated: number }).repeated])).toEqual([
      ['a', null],
      ['b', null],
      ['c', null],
      ['a', 1],
      ['a', null],
      ['b', 2],
      ['b', null],
    ]);
  });

  it('refuses bad filters with 400 and changes nothing', async () => {
    for (const query of ['?since=yesterday', '?kind=everything', '?limit=0', '?cursor=bogus', '?since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z']) {
      const response = await app.inject({ method: 'GET', url: `/api/audit${query}`, headers: admin });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error).toEqual({ code: expect.any(String), message: expect.any(String) });
    }
    expect((await app.inject({ method: 'GET', url: '/api/audit' })).statusCode).toBe(401);
  });

  it('has no way to change or delete an entry', async () => {
    await app.inject({ method: 'GET', url: '/files/plan', headers: asUser('zhang') });
    await audit.flush();
    const [entry] = (await list('')).items;
    for (const [method, url] of [
      ['DELETE', '/api/audit'],
      ['DELETE', `/api/audit/${String(entry!.id)}`],
      ['PUT', `/api/audit/${String(entry!.id)}`],
      ['PATCH', `/api/audit/${String(entry!.id)}`],
      ['POST', '/api/audit'],
    ] as const) {
      const response = await app.inject({ method, url, headers: admin, payload: {} });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    await audit.flush();
    expect((await list('')).items).toEqual([entry]);
  });
});

describeEachStore('audit buffer', (store) => {
  it('is bounded: past its size new entries are dropped and counted; a flush writes in batches', async () => {
    const audit = new AuditTrail(store().db, { now: () => T0, maxBuffered: 3, batchSize: 2 });
    const entry = (i: number) =>
      ({ kind: 'file_access', actorId: 'u', credential: 'user_token', fileId: `f${i}`, action: 'GET /files/:fileId', permissions: [], details: null }) as const;
    for (let i = 0; i < 5; i += 1) audit.record(entry(i));
    expect(audit.buffered()).toBe(3);
    expect(audit.counts).toEqual({ recorded: 3, coalesced: 0, written: 0, dropped: 2 });
    await audit.close();
    expect(audit.counts).toEqual({ recorded: 3, coalesced: 0, written: 3, dropped: 2 });
    expect(await store().db.selectFrom('audit_log').select('id').execute()).toHaveLength(3);
  });

  it('writes a large batch whole and in order, serving the event loop between its parts', async () => {
    await store().db.deleteFrom('audit_log').execute();
    const audit = new AuditTrail(store().db, { now: () => T0 });
    for (let i = 0; i < 250; i += 1)
      audit.record({
        kind: 'file_access',
        actorId: `u${i % 7}`,
        credential: 'user_token',
        fileId: `big${i}`,
        action: 'GET /files/:fileId',
        permissions: ['readable'],
        details: null,
      });
    let turns = 0;
    let done = false;
    const spin = (): void => {
      if (done) return;
      turns += 1;
      setImmediate(spin);
    };
    setImmediate(spin);
    await audit.flush();
    done = true;
    expect(turns).toBeGreaterThan(0);
    expect(audit.counts.written).toBe(250);
    const stored = await store().db.selectFrom('audit_log').select(['id', 'file_id']).orderBy('id').execute();
    expect(stored.map((row) => row.file_id)).toEqual(Array.from({ length: 250 }, (_, i) => `big${i}`));
  });
});
