import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, startCli } from '../cli/run-cli.js';
import { waitFor } from '../events/webhook-receiver.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from './fresh-store.js';
import { startRelay } from './tcp-relay.js';

/**
 * The PostgreSQL or MySQL connection cut under a running `collab-host serve` (a child process, so "alive" means
 * the process itself), through a TCP relay this test cuts and restores. (SQLite is a file: it does not go away.)
 */
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(dialects.includes(dialect))(`a database that goes away and comes back [${dialect}]`, { timeout: 120_000 }, () => {
    let relay: Awaited<ReturnType<typeof startRelay>>;
    let schema: Awaited<ReturnType<typeof freshStore>>;
    let server: Awaited<ReturnType<typeof startCli>>;
    let address: string;
    let token: string;
    const dir = mkdtempSync(join(tmpdir(), 'ch-outage-'));

    beforeAll(async () => {
      schema = await freshStore(dialect);
      const target = new URL(schema.url);
      relay = await startRelay({ host: target.hostname, port: Number(target.port || (dialect === 'mysql' ? 3306 : 5432)) });
      const viaRelay = new URL(schema.url);
      viaRelay.host = `127.0.0.1:${relay.port}`;
      server = await startCli(['serve'], { cwd: dir, env: cliEnv(viaRelay.href, { PORT: '0', LOG_LEVEL: 'silent', OVERLOAD_RETRY_AFTER: '7' }), ready: /curl -H .*\n/ });
      address = /listening on (\S+)/.exec(server.stdout())![1]!;
      token = /^ {2}curl -H '[^:]+: ([^']+)'/m.exec(server.stdout())![1]!;
    });
    afterAll(async () => {
      await server?.stop();
      await relay?.close();
      await schema?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const get = (path: string) => fetch(`${address}${path}`, { headers: { 'x-platform-token': token } });

    it('answers 503 where it needs the database while it is away, stays alive, and recovers by itself', async () => {
      expect((await get('/readyz')).status).toBe(200);
      expect((await get('/users/current/info')).status).toBe(200);

      await relay.cut();
      const notReady = await waitFor(
        async () => {
          const response = await get('/readyz');
          return response.status === 503 ? response : undefined;
        },
        20_000,
        '/readyz 503',
      );
      expect(notReady.headers.get('retry-after')).toBe('7');
      const body = (await notReady.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe('unavailable');
      expect(body.checks.database).toMatch(/^unreachable/);
      expect(body.checks.workers).toBe('ok');

      // The directory is in memory (the read model): who the user is still answers; a search of the
      // store's index does not.
      expect((await get('/users/current/info')).status).toBe(200);
      const needsDatabase = await fetch(`${address}/search`, {
        method: 'POST',
        headers: { 'x-platform-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'team_member', keyword: '张' }),
      });
      expect(needsDatabase.status).toBe(503);
      expect(needsDatabase.headers.get('retry-after')).toBe('7');
      expect(await needsDatabase.json()).toEqual({ error: { code: 'database_unavailable', message: 'the database cannot be reached right now; retry later' } });
      expect((await get('/healthz')).status).toBe(200);
      expect(server.child.exitCode).toBeNull();

      await relay.restore();
      await waitFor(async () => ((await get('/readyz')).status === 200 ? true : undefined), 30_000, '/readyz 200 again');
      const again = await get('/users/current/info');
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ id: 'zhangsan' });
      expect(server.child.exitCode).toBeNull();
    });
  });

describe('a database that cannot be reached at start-up', { timeout: 60_000 }, () => {
  it.each(['postgres', 'mysql'])('is named, password redacted, with the reason; the command exits 1 (%s)', async (scheme) => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dir = mkdtempSync(join(tmpdir(), 'ch-unreachable-'));
    try {
      const result = await runCli(['serve'], { cwd: dir, env: cliEnv(`${scheme}://app:s3cret-password@127.0.0.1:${port}/collab`, { PORT: '0' }) });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`collab-host: cannot reach the database ${scheme}://app:[redacted]@127.0.0.1:${port}/collab: connect ECONNREFUSED 127.0.0.1:${port}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
