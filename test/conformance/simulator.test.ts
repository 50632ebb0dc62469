import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds, signHs256 } from '../../src/conformance/jwt.js';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const APP = { appId: 'sim-app', appSecret: 'sim-app-secret-0123456789' };

/** A signature as the platform's kit mints it (a `jti` keeps each one distinct), with the given changes. */
function sign(claims: Record<string, unknown> = {}, options: { secret?: string; kid?: string | null } = {}): string {
  const now = epochSeconds();
  const header: Record<string, string> = options.kid === null ? {} : { kid: options.kid ?? APP.appId };
  return signHs256({ iat: now, exp: now + 3600, jti: randomUUID(), ...claims }, options.secret ?? APP.appSecret, header);
}
const license = (claims: Record<string, unknown> = {}, options: { secret?: string; kid?: string | null } = {}) =>
  sign({ scope: 'license', exp: epochSeconds() + 240, ...claims }, options);

describe('the simulated platform API: credentials and errors', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ credentials: APP, memberLimit: 2 });
  });
  afterAll(() => sim.close());

  const call = (method: string, path: string, options: { query?: Record<string, string | undefined>; headers?: Record<string, string>; body?: unknown } = {}) => {
    const url = new URL(path, sim.url);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    return fetch(url, { method, headers: { 'content-type': 'application/json', ...options.headers }, ...(body === undefined ? {} : { body }) });
  };
  const create = (query: Record<string, string | undefined>, body: unknown = { type: 'documentPro', fileId: `doc-${randomUUID().slice(0, 8)}` }) =>
    call('POST', '/sdk/v2/api/files', { query, body });
  const valid = () => ({ appId: APP.appId, signature: sign(), token: 'user-token' });
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

  it("takes the credentials from the headers, with the appId from the signature's kid, as the kit sends them", async () => {
    const headers = { 'X-Platform-Signature': sign(), 'X-Platform-Token': 'header-token' };
    expect((await call('POST', '/sdk/v2/api/files', { headers, body: { type: 'document', fileId: 'by-header' } })).status).toBe(204);
    expect(sim.platform.files.get('by-header')?.token).toBe('header-token');
    const weboffice = { 'X-Platform-Signature': sign(), 'X-Weboffice-Token': 'weboffice-token' };
    expect((await call('POST', '/sdk/v2/api/files', { headers: weboffice, body: { type: 'document', fileId: 'by-weboffice' } })).status).toBe(204);
    expect(sim.platform.files.get('by-weboffice')?.token).toBe('weboffice-token');
  });

  it('refuses a replayed license signature (single use) with 70005, and license calls with an unscoped one', async () => {
    const signature = license();
    expect((await call('GET', `/sdk/v2/api/license/apps/${APP.appId}`, { headers: { 'X-Platform-Signature': signature } })).status).toBe(200);
    const replay = await call('GET', `/sdk/v2/api/license/apps/${APP.appId}`, { headers: { 'X-Platform-Signature': signature } });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual({ code: 70005, message: 'this license signature was already used (single use)' });
    expect(await refusal(await call('GET', '/sdk/v2/api/license/users', { query: { signature: sign() } }))).toEqual({ status: 401, code: 70003 });
  });

  it('refuses every broken rule with its code', async () => {
    const now = epochSeconds();
    const cases: Array<[string, Promise<Response>, number, number]> = [
      ['no signature', create({ ...valid(), signature: undefined }), 400, 70001],
      ['no token on create', create({ ...valid(), token: undefined }), 400, 70001],
      ['another appId', create({ ...valid(), appId: 'other-app' }), 401, 70002],
      ['another kid', create({ ...valid(), signature: sign({}, { kid: 'other-app' }) }), 401, 70002],
      ['no appId and no kid', create({ ...valid(), appId: undefined, signature: sign({}, { kid: null }) }), 401, 70003],
      ['another secret', create({ ...valid(), signature: sign({}, { secret: 'wrong-secret-0123456789' }) }), 401, 70003],
      ['license scope on a file call', create({ ...valid(), signature: license() }), 401, 70003],
      ['expired', create({ ...valid(), signature: sign({ iat: now - 200, exp: now - 1 }) }), 401, 70004],
      ['25 hours', create({ ...valid(), signature: sign({ exp: now + 25 * 3600 }) }), 401, 70004],
      ['no exp', create({ ...valid(), signature: sign({ exp: undefined }) }), 401, 70004],
      ['iat 10 minutes off', create({ ...valid(), signature: sign({ iat: now - 600 }) }), 401, 70004],
      ['license exp 5½ minutes ahead', call('GET', '/sdk/v2/api/license/users', { query: { signature: license({ exp: now + 330 }) } }), 401, 70004],
      ['type file', create(valid(), { type: 'file', fileId: 'x1' }), 400, 70001],
      ['no type', create(valid(), { fileId: 'x2' }), 400, 70001],
      ['no fileId', create(valid(), { type: 'document' }), 400, 70001],
      ['fileId of 65 characters', create(valid(), { type: 'document', fileId: 'f'.repeat(65) }), 400, 70001],
      ['lang ja (the kit says jp)', create({ ...valid(), lang: 'ja' }), 400, 70001],
      ['not JSON', create(valid(), '{"type":'), 400, 70001],
      ['seats over the member limit', call('POST', '/sdk/v2/api/license/users/activate', { query: { signature: license() }, body: { userIds: ['a', 'b', 'c'] } }), 403, 70014],
      ['seat status 2', call('POST', '/sdk/v2/api/license/users/set-status', { query: { signature: license() }, body: { userIds: ['a'], status: 2 } }), 400, 70001],
      ['callback url not http', call('PUT', `/sdk/v2/api/license/apps/${APP.appId}/endpoint-url`, { query: { signature: license() }, body: { url: 'ftp://x' } }), 400, 70001],
    ];
    for (const [what, response, status, code] of cases) expect({ what, ...(await refusal(await response)) }).toEqual({ what, status, code });
    expect([...sim.platform.files.keys()]).not.toContain('x1');
  });

  it('deletes a created file (204), then answers 70013 for it', async () => {
    expect((await create(valid(), { type: 'table', fileId: 'gone' })).status).toBe(204);
    const del = () => call('DELETE', '/sdk/v2/api/files/gone', { query: { appId: APP.appId, signature: sign() } });
    expect((await del()).status).toBe(204);
    expect(await refusal(await del())).toEqual({ status: 404, code: 70013 });
  });
});

describeEachStore("the simulator's editor page against collab-host", (store) => {
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
    // The nine finer keys too, each as the callback answered it.
    expect(html).toContain('<td>lockable</td><td class="no">false</td>');
    expect(html).toContain('<td>attachmentPreviewable</td><td class="yes">true</td>');
    expect(html.match(/<tr><td>[A-Za-z]+<\/td><td class="(yes|no)">(true|false)<\/td><\/tr>/g)).toHaveLength(15);
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
    } finally {
      await bare.close();
    }
    const malformedSim = await startSimulator({ credentials: APP, endpointUrl: 'ftp://x' });
    try {
      expect(await (await fetch(`${malformedSim.url}/editor?fileId=plan&token=x`)).text()).toContain('endpoint_url must start with http(s)://');
    } finally {
      await malformedSim.close();
    }
  });

  it('calls back only the configured endpoint_url, whatever endpoint= the page is given (issue 20, item 12)', async () => {
    // A receiver that must never be called: the page is no open relay.
    let relayed = 0;
    const elsewhere = createServer((_request, response) => {
      relayed += 1;
      response.end('{}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      const other = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
      for (const endpoint of [other, `${other}/`, 'http://169.254.169.254/latest']) {
        const { status, html } = await open({ fileId: 'plan', token: tokenFor('lilei'), endpoint });
        expect(status).toBe(400);
        expect(html).toContain('is not this application&#39;s endpoint_url: the editor calls back only http://127.0.0.1:');
      }
      expect(relayed).toBe(0);
      // The configured address itself, named explicitly, still opens.
      expect((await open({ fileId: 'plan', token: tokenFor('lilei'), endpoint: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` })).status).toBe(200);
    } finally {
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });
});
