import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds, signHs256 } from '../../src/conformance/jwt.js';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import { PlatformError } from '../../src/platform/platform-errors.js';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const APP = { appId: 'sim-app', appSecret: 'sim-app-secret-0123456789' };

/** A license signature as contracts.md has the integrator mint it (a `jti` keeps each one distinct), with the given changes. */
function license(claims: Record<string, unknown> = {}, options: { secret?: string; kid?: string | null } = {}): string {
  const now = epochSeconds();
  const header: Record<string, string> = options.kid === null ? {} : { kid: options.kid ?? APP.appId };
  return signHs256({ scope: 'license', iat: now, exp: now + 240, jti: randomUUID(), ...claims }, options.secret ?? APP.appSecret, header);
}

describe('the simulated platform API: POST /sdk/v2/api/files', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ credentials: APP });
  });
  afterAll(() => sim.close());

  const create = (query: Record<string, string | undefined>, body: unknown = { type: 'documentPro', fileId: `doc-${Math.random().toString(36).slice(2)}` }) => {
    const url = new URL('/sdk/v2/api/files', sim.url);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  };
  const valid = () => ({ appId: APP.appId, signature: license(), token: 'user-token' });
  const refusal = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { code: number }).code });

  it('answers 204 and remembers the file with its token; the same fileId again is 70012', async () => {
    const first = await create(valid(), { type: 'spreadsheet', fileId: 'sheet-1' });
    expect(first.status).toBe(204);
    expect(await first.text()).toBe('');
    expect(sim.platform.files.get('sheet-1')).toMatchObject({ fileId: 'sheet-1', type: 'spreadsheet', token: 'user-token' });
    const listed = (await (await fetch(`${sim.url}/simulator/files`)).json()) as { files: unknown[] };
    expect(listed.files).toEqual([expect.objectContaining({ fileId: 'sheet-1', type: 'spreadsheet' })]);
    expect(await refusal(await create(valid(), { type: 'document', fileId: 'sheet-1' }))).toEqual({ status: 409, code: 70012 });
  });

  it('refuses a replayed license signature (single use) with 70005', async () => {
    const signature = license();
    expect((await create({ ...valid(), signature })).status).toBe(204);
    const replay = await create({ ...valid(), signature });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual({ code: 70005, message: 'this license signature was already used (single use)' });
  });

  it('refuses every broken rule with its code', async () => {
    const now = epochSeconds();
    const cases: Array<[string, Promise<Response>, number, number]> = [
      ['no appId', create({ ...valid(), appId: undefined }), 400, 70001],
      ['no signature', create({ ...valid(), signature: undefined }), 400, 70001],
      ['no token', create({ ...valid(), token: undefined }), 400, 70001],
      ['another appId', create({ ...valid(), appId: 'other-app' }), 401, 70002],
      ['another secret', create({ ...valid(), signature: license({}, { secret: 'wrong-secret-0123456789' }) }), 401, 70003],
      ['no kid', create({ ...valid(), signature: license({}, { kid: null }) }), 401, 70003],
      ['another kid', create({ ...valid(), signature: license({}, { kid: 'other-app' }) }), 401, 70003],
      ['not scope license', create({ ...valid(), signature: license({ scope: 'callback' }) }), 401, 70003],
      ['expired', create({ ...valid(), signature: license({ iat: now - 200, exp: now - 1 }) }), 401, 70004],
      ['exp 5½ minutes ahead', create({ ...valid(), signature: license({ exp: now + 330 }) }), 401, 70004],
      ['no exp', create({ ...valid(), signature: license({ exp: undefined }) }), 401, 70004],
      ['iat 10 minutes off', create({ ...valid(), signature: license({ iat: now - 600 }) }), 401, 70004],
      ['type file', create(valid(), { type: 'file', fileId: 'x1' }), 400, 70001],
      ['no type', create(valid(), { fileId: 'x2' }), 400, 70001],
      ['no fileId', create(valid(), { type: 'document' }), 400, 70001],
      ['fileId of 65 characters', create(valid(), { type: 'document', fileId: 'f'.repeat(65) }), 400, 70001],
      ['not JSON', create(valid(), '{"type":'), 400, 70001],
    ];
    for (const [what, response, status, code] of cases) expect({ what, ...(await refusal(await response)) }).toEqual({ what, status, code });
    expect([...sim.platform.files.keys()]).not.toContain('x1');
  });

  it('deletes a created file (204), then answers 70013 for it', async () => {
    expect((await create(valid(), { type: 'table', fileId: 'gone' })).status).toBe(204);
    const del = () => fetch(`${sim.url}/sdk/v2/api/files/gone?appId=${APP.appId}&signature=${license()}`, { method: 'DELETE' });
    expect((await del()).status).toBe(204);
    expect(await refusal(await del())).toEqual({ status: 404, code: 70013 });
  });

  it('serves collab-host\'s own platform client: created, then the duplicate named by its code', async () => {
    const client = new PlatformClient({ apiUrl: sim.url, credentials: APP });
    await client.createDocument({ fileId: 'client-doc', type: 'documentPro', token: 't' });
    await client.createDocument({ fileId: 'client-doc-2', type: 'document', token: 't' });
    expect(sim.platform.files.has('client-doc')).toBe(true);
    const duplicate = client.createDocument({ fileId: 'client-doc', type: 'documentPro', token: 't' });
    await expect(duplicate).rejects.toBeInstanceOf(PlatformError);
    await expect(duplicate).rejects.toMatchObject({ platformCode: '70012', status: 409 });
  });
});

describeEachStore('the simulator\'s editor page against collab-host', (store) => {
  let app: FastifyInstance;
  let sim: RunningSimulator;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store());
    const endpointUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    sim = await startSimulator({ credentials: APP, endpointUrl });
  });
  afterAll(async () => {
    await sim?.close();
    await app?.close();
  });

  const open = async (query: Record<string, string>) => {
    const response = await fetch(`${sim.url}/editor?${new URLSearchParams(query).toString()}`);
    return { status: response.status, html: await response.text() };
  };

  it('shows the title, the user and the permissions the callbacks gave', async () => {
    const { status, html } = await open({ fileId: 'plan', token: tokenFor('lilei') });
    expect(status).toBe(200);
    expect(html).toContain('<h1 id="title">季度计划</h1>');
    expect(html).toContain('Opened by <strong>李雷</strong> (<code>lilei</code>, lilei@example.com, team <code>acme</code>)');
    expect(html).toContain('<td>editable</td><td class="yes">true</td>');
    expect(html).toContain('<td>manageable</td><td class="no">false</td>');
    expect(html).toMatch(/<div id="watermark"><div>李雷<\/div>/);
    expect(html).toContain('<li><code>GET /files/plan</code> &rarr; 200</li>');
    expect(html).toContain('<li><code>GET /users/lilei/watermark</code> &rarr; 200</li>');
    expect(html).toContain('was not created through this simulator');
  });

  it('stops, as the platform does, when the current-user callback fails', async () => {
    const { status, html } = await open({ fileId: 'plan', token: 'forged' });
    expect(status).toBe(400);
    expect(html).toContain('the current-user callback failed (401): the editor stops and does not continue anonymously');
    expect(html).not.toContain('id="title"');
  });

  it('says a user without access may not read the file', async () => {
    const { html } = await open({ fileId: 'secret', token: tokenFor('alice') });
    expect(html).toContain('the user may not read this file (permissions.readable is not true)');
  });

  it('names a missing or malformed endpoint_url as the platform does', async () => {
    const bare = await startSimulator({ credentials: APP });
    try {
      const missing = await fetch(`${bare.url}/editor?fileId=plan&token=x`);
      expect(missing.status).toBe(400);
      expect(await missing.text()).toContain('endpoint_url should be configured before use');
      const malformed = await fetch(`${bare.url}/editor?fileId=plan&token=x&endpoint=ftp://x`);
      expect(await malformed.text()).toContain('endpoint_url must start with http(s)://');
    } finally {
      await bare.close();
    }
  });
});
