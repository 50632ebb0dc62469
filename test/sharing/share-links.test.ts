import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyUserToken } from '../../src/auth/user-token.js';
import { formatTime } from '../../src/directory/time.js';
import { buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
const inAnHour = () => formatTime(Date.now() + 3600_000);

describeEachStore('share links: management API and guest tokens', (store) => {
  let app: FastifyInstance;
  let address = 0;
  /** Each test asks from its own address, so the per-address limit of one test does not reach another. */
  const from = () => `10.0.0.${++address}`;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  const create = (fileId: string, payload: Record<string, unknown>) => app.inject({ method: 'POST', url: `/api/files/${fileId}/share-links`, headers: admin, payload });
  const list = async (fileId: string) => (await app.inject({ method: 'GET', url: `/api/files/${fileId}/share-links`, headers: admin })).json().items;
  const tokenFor = (code: string, payload: Record<string, unknown> = {}, remoteAddress = from()) =>
    app.inject({ method: 'POST', url: `/share-links/${encodeURIComponent(code)}/token`, payload, remoteAddress });

  it('creates a link with an unguessable code, lists it (never the code) and revokes it', async () => {
    const expiresAt = inAnHour();
    const created = await create('plan', { role: 'comment', expiresAt, maxUses: 3 });
    expect(created.statusCode).toBe(201);
    const link = created.json();
    expect(link).toMatchObject({ fileId: 'plan', role: 'comment', expiresAt, maxUses: 3, uses: 0, ownerId: 'zhang', hasPassword: false, state: 'active', revokedAt: null });
    expect(Buffer.from(link.code, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(link.id).not.toBe(link.code);
    const listed = (await list('plan')).find((entry: { id: string }) => entry.id === link.id);
    expect(listed).toMatchObject({ id: link.id, state: 'active', guests: [] });
    expect(JSON.stringify(await list('plan'))).not.toContain(link.code);
    const stored = await store().db.selectFrom('share_links').selectAll().where('id', '=', link.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(link.code);

    expect((await app.inject({ method: 'DELETE', url: `/api/share-links/${link.id}`, headers: admin })).statusCode).toBe(204);
    expect((await list('plan')).find((entry: { id: string }) => entry.id === link.id).state).toBe('revoked');
    const again = await app.inject({ method: 'DELETE', url: '/api/share-links/link-unknown', headers: admin });
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('link_not_found');
  });

  it('refuses bad input with 4xx in the error shape and stores nothing', async () => {
    const before = (await list('plan')).length;
    const cases: Array<[string, Record<string, unknown>, number, string?]> = [
      ['plan', { role: 'manager' }, 400],
      ['plan', { role: 'view', expiresAt: '2020-01-01T00:00:00Z' }, 400, 'invalid_expiry'],
      ['plan', { role: 'view', expiresAt: 'tomorrow' }, 400],
      ['plan', { role: 'view', maxUses: 0 }, 400],
      ['plan', { role: 'view', password: '' }, 400],
      ['plan', { role: 'view', ownerId: 'nobody' }, 404, 'user_not_found'],
      ['nothing', { role: 'view' }, 404, 'file_not_found'],
    ];
    for (const [fileId, payload, status, code] of cases) {
      const response = await create(fileId, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(status);
      expect(response.json().error.message).toEqual(expect.any(String));
      if (code) expect(response.json().error.code).toBe(code);
    }
    expect(await list('plan')).toHaveLength(before);
    const noKey = await app.inject({ method: 'POST', url: '/api/files/plan/share-links', payload: { role: 'view' } });
    expect(noKey.statusCode).toBe(401);
  });

  it('gives a guest token bound to the file, expiring no later than the link', async () => {
    const expiresAt = formatTime(Date.now() + 600_000);
    const { code, id } = (await create('plan', { role: 'edit', expiresAt })).json();
    const response = await tokenFor(code, { name: '  Visitor Vera  ' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ fileId: 'plan', role: 'edit', user: { name: 'Visitor Vera' } });
    expect(body.user.id).toMatch(/^guest-/);
    expect(body.expiresAt <= expiresAt).toBe(true);
    const verified = await verifyUserToken(body.token, makeTestConfig().tokenSecret);
    expect(verified).toMatchObject({ ok: true, userId: body.user.id, linkId: id });
    expect(verified.ok && verified.expiresAt * 1000 <= Date.parse(expiresAt)).toBe(true);
    const listed = (await list('plan')).find((entry: { id: string }) => entry.id === id);
    expect(listed.uses).toBe(1);
    expect(listed.guests).toEqual([expect.objectContaining({ id: body.user.id, name: 'Visitor Vera' })]);
  });

  it('answers a distinct 403 for a missing or wrong password, a revoked, expired or used-up link', async () => {
    const locked = (await create('plan', { role: 'view', password: 'open sesame' })).json();
    expect((await tokenFor(locked.code)).json().error.code).toBe('password_required');
    const wrong = await tokenFor(locked.code, { password: 'open sesame!' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe('password_wrong');
    expect((await tokenFor(locked.code, { password: 'open sesame' })).statusCode).toBe(200);
    const stored = await store().db.selectFrom('share_links').select('password_hash').where('id', '=', locked.id).executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    expect(stored.password_hash).not.toContain('open sesame');

    const once = (await create('plan', { role: 'view', maxUses: 1 })).json();
    expect((await tokenFor(once.code)).statusCode).toBe(200);
    const usedUp = await tokenFor(once.code);
    expect([usedUp.statusCode, usedUp.json().error.code]).toEqual([403, 'link_used_up']);

    const revoked = (await create('plan', { role: 'view' })).json();
    await app.inject({ method: 'DELETE', url: `/api/share-links/${revoked.id}`, headers: admin });
    const refused = await tokenFor(revoked.code);
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'link_revoked']);

    const expiring = (await create('plan', { role: 'view', expiresAt: inAnHour() })).json();
    await store().db.updateTable('share_links').set({ expires_at: '2020-01-01T00:00:00Z' }).where('id', '=', expiring.id).execute();
    const expired = await tokenFor(expiring.code);
    expect([expired.statusCode, expired.json().error.code]).toEqual([403, 'link_expired']);

    const unknown = await tokenFor('no-such-code');
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'link_not_found']);
  });

  it('rate-limits refused attempts per link and per address, and audits them', async () => {
    const locked = (await create('sheet', { role: 'view', password: 'right' })).json();
    const address = from();
    for (let i = 0; i < 10; i++) expect((await tokenFor(locked.code, { password: `wrong${i}` }, address)).statusCode).toBe(403);
    const limited = await tokenFor(locked.code, { password: 'right' }, address);
    expect([limited.statusCode, limited.json().error.code]).toEqual([429, 'too_many_attempts']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Per link: another address is refused too, even with the right password.
    const elsewhere = await tokenFor(locked.code, { password: 'right' });
    expect(elsewhere.statusCode).toBe(429);
    // Per address: the limited address is refused on another link as well.
    const other = (await create('sheet', { role: 'view' })).json();
    expect((await tokenFor(other.code, {}, address)).statusCode).toBe(429);
    expect((await tokenFor(other.code)).statusCode).toBe(200);

    await app.close();
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY });
    const audit = await store().db.selectFrom('audit_log').selectAll().where('credential', '=', 'share_link').execute();
    const outcomes = audit.map((row) => JSON.parse(String(row.details)).outcome);
    expect(outcomes).toEqual(expect.arrayContaining(['granted', 'password_wrong', 'password_required', 'link_revoked', 'link_used_up', 'too_many_attempts']));
    expect(JSON.stringify(audit)).not.toContain(locked.code);
    expect(JSON.stringify(audit)).not.toContain('wrong1');
  });
});
