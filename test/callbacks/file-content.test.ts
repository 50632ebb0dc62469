import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadLinks } from '../../src/auth/download-link.js';
import { contentDisposition, downloadName } from '../../src/callbacks/file-content.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import type { Directory } from '../../src/directory/directory.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { describeEachStore } from '../helpers/stores.js';
import { MANUAL_BYTES, seedWithExtras } from '../directory/fixture-extras.js';

const config = makeTestConfig();
const links = new DownloadLinks(config.tokenSecret, config.publicUrl);
const local = (url: string) => url.replace(config.publicUrl, '');

describeEachStore('stored file content', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedWithExtras(store().db);
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  it('the downloadUrl of GET /files/{fileId} serves the bytes with type and RFC 5987 file name', async () => {
    const preview = (await app.inject({ method: 'GET', url: '/files/manual', headers: asUser('alice') })).json();
    expect(preview).toMatchObject({ id: 'manual', name: '员工手册 (2024)', type: 'file', ext: 'pdf' });
    const response = await app.inject({ method: 'GET', url: local(preview.downloadUrl) }); // no token needed
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="____ (2024).pdf"; filename*=UTF-8''%E5%91%98%E5%B7%A5%E6%89%8B%E5%86%8C%20%282024%29.pdf`);
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.rawPayload.equals(MANUAL_BYTES)).toBe(true);
  });

  it('a tampered, foreign or expired link is 403 and serves nothing', async () => {
    const good = new URL(links.linkFor('manual'));
    const sig = good.searchParams.get('sig') as string;
    const expires = good.searchParams.get('expires') as string;
    const cases: Array<[string, string]> = [
      [`/content/manual?expires=${expires}&sig=${sig.slice(0, -2)}AA`, 'link_invalid'],
      [`/content/manual?expires=${Number(expires) + 60}&sig=${sig}`, 'link_invalid'],
      [`/content/bare?expires=${expires}&sig=${sig}`, 'link_invalid'],
      [local(new DownloadLinks('some-other-secret-0123456', config.publicUrl).linkFor('manual')), 'link_invalid'],
      [local(links.linkFor('manual', Date.now() - 3_600_000)), 'link_expired'],
    ];
    for (const [url, code] of cases) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(403);
      expect(response.json().error.code).toBe(code);
    }
  });

  it('a valid link to a file without stored bytes, or to an unknown or pending file, is 404', async () => {
    for (const fileId of ['bare', 'contract', 'nope', 'draft']) {
      const response = await app.inject({ method: 'GET', url: local(links.linkFor(fileId)) });
      expect(response.statusCode, fileId).toBe(404);
      expect(response.json().error.code).toBe('content_not_found');
    }
  });

  it('a link without its parameters is a 400', async () => {
    for (const url of ['/content/manual', '/content/manual?expires=abc&sig=x', '/content/manual?expires=1&sig=bad%20sig']) {
      expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(400);
    }
  });
});

describeEachStore('stored content of a host application directory', (store) => {
  it("serves the bytes of the host directory's getFileContent behind the same signed links", async () => {
    await seedWithExtras(store().db);
    const host = SqlDirectory.over(store());
    // The store's directory, but with the host's own bytes.
    const directory: Directory = Object.assign(Object.create(host) as Directory, {
      getFileContent: async (id: string) => (id === 'manual' ? { contentType: 'application/pdf', content: Buffer.from('host bytes') } : undefined),
    });
    const app = await buildTestApp(store(), {}, { directory });
    try {
      const response = await app.inject({ method: 'GET', url: local(links.linkFor('manual')), headers: { range: 'bytes=5-' } });
      expect(response.statusCode).toBe(206);
      expect(response.body).toBe('bytes');
      expect(response.headers['content-type']).toBe('application/pdf');
    } finally {
      await app.close();
    }
  });
});

describe('download names', () => {
  it('appends the extension when the name lacks it, and encodes non-ASCII names per RFC 5987', () => {
    expect(downloadName({ name: '合同', ext: 'docx' })).toBe('合同.docx');
    expect(downloadName({ name: '合同.DOCX', ext: '.docx' })).toBe('合同.DOCX');
    expect(downloadName({ name: 'notes', ext: null })).toBe('notes');
    expect(contentDisposition('a "b";c.txt')).toBe(`attachment; filename="a _b__c.txt"; filename*=UTF-8''a%20%22b%22%3Bc.txt`);
    expect(contentDisposition('报告.pdf')).toBe(`attachment; filename="__.pdf"; filename*=UTF-8''%E6%8A%A5%E5%91%8A.pdf`);
  });
});
