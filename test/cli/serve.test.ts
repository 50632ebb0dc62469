import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/composition/server.js';
import { startupBanner } from '../../src/cli/startup-banner.js';
import { missingServingFlags } from '../../src/cli/serving-flags.js';
import { loadConfig, withEphemeralAdminKey } from '../../src/config/config.js';
import { makeTestConfig } from '../helpers/app.js';
import { cliEnv, runCli, startCli } from './run-cli.js';

/** The header and URL of the banner's curl line, exactly as printed. */
function curlLine(banner: string): { header: string; value: string; url: string } {
  const match = /^ {2}curl -H '([^:]+): ([^']+)' (\S+)$/m.exec(banner);
  if (!match) throw new Error(`no curl line in:\n${banner}`);
  return { header: match[1]!, value: match[2]!, url: match[3]! };
}

describe('collab-host serve (child process)', { timeout: 120_000 }, () => {
  it('loads the demo into an empty store and prints a curl line that works as printed; a restart keeps the data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-serve-'));
    const env = cliEnv(`sqlite:${join(dir, 'collab-host.db')}`, { PORT: '0', LOG_LEVEL: 'warn' });

    const first = await startCli(['serve'], { cwd: dir, env, ready: /console: .*\n/ });
    try {
      const banner = first.stdout();
      expect(banner).toMatch(/^collab-host listening on http:\/\/127\.0\.0\.1:\d+\n/);
      expect(banner).toContain('loaded the demo directory (24 users, 10 files) into an empty store');
      expect(banner).toMatch(/\ndirectory in memory: 24 users, 10 files, loaded in \d+ ms\n/);
      const curl = curlLine(banner);
      expect(curl.header).toBe('X-Platform-Token');
      const response = await fetch(curl.url, { headers: { [curl.header]: curl.value } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: 'zhangsan', name: '张三', teamGuid: 'galaxy' });
      // Ready: database, migrations, the reminder scheduler and the outbox worker started by serve.
      const address = /listening on (\S+)/.exec(banner)![1]!;
      // The directory loads into memory after the start: ready once it has (as a readiness probe sees it).
      await expect.poll(async () => (await fetch(`${address}/readyz`)).status, { timeout: 30_000 }).toBe(200);
      const ready = await fetch(`${address}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', workers: 'ok', load: 'ok', readModel: 'ok' } });
      // Without ADMIN_API_KEY a development start makes one for itself and prints it: the management API works.
      const key = /management API and console key \(this start only: ADMIN_API_KEY is not set\):\n {2}(\S+)\n/.exec(banner)![1]!;
      expect(banner).toContain(`console: ${address}/console\n`);
      expect((await fetch(`${address}/api/teams`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      expect((await fetch(`${address}/api/teams`, { headers: { authorization: 'Bearer not-the-key-0123456789' } })).status).toBe(401);

      // A second serve on the same file is refused with one line; the first keeps serving.
      const again = await runCli(['serve'], { cwd: dir, env });
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(
        /^another collab-host serve is running on \S+collab-host\.db \(it holds \S+-serve\.lock\): one process serves an SQLite file; use PostgreSQL for several instances\n$/,
      );
      expect((await fetch(`${address}/readyz`)).status).toBe(200);
    } finally {
      await first.stop();
    }

    const second = await startCli(['serve'], { cwd: dir, env, ready: /console: .*\n/ });
    try {
      expect(second.stdout()).not.toContain('loaded the demo');
      const curl = curlLine(second.stdout());
      const response = await fetch(curl.url, { headers: { [curl.header]: curl.value } });
      expect(response.status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});

describe('startServer', () => {
  it('seeds the demo only when asked (on by default outside production) and only into an empty store', async () => {
    const off = await startServer(makeTestConfig({ port: 0, logLevel: 'silent' }), { seedDemo: false });
    try {
      expect(off.seeded).toBeNull();
      expect(await off.store.db.selectFrom('users').select('id').execute()).toEqual([]);
    } finally {
      await off.close();
    }
    const on = await startServer(makeTestConfig({ port: 0, logLevel: 'silent' }));
    try {
      expect(on.seeded).toMatchObject({ users: 24, files: 10, contents: 1 });
    } finally {
      await on.close();
    }
    const production = await startServer(makeTestConfig({ port: 0, logLevel: 'silent', production: true }));
    try {
      expect(production.seeded).toBeNull();
    } finally {
      await production.close();
    }
  });
});

describe('startupBanner', () => {
  it('spells the header with HEADER_BRAND and turns a wildcard address into one curl can reach', () => {
    const banner = startupBanner(makeTestConfig({ headerBrand: 'Shimo', tokenTtlSeconds: 7200 }), {
      address: 'http://0.0.0.0:3000',
      user: { id: 'zhangsan', token: 'abc.def.ghi' },
    });
    expect(banner).toContain('collab-host listening on http://0.0.0.0:3000\n');
    expect(banner).toContain('token of user zhangsan (valid 2h');
    expect(curlLine(banner)).toEqual({ header: 'X-Shimo-Token', value: 'abc.def.ghi', url: 'http://127.0.0.1:3000/users/current/info' });
  });

  it('makes a management key for a development start only, never in production or when ADMIN_API_KEY is set', () => {
    const dev = withEphemeralAdminKey(makeTestConfig());
    expect(dev.ephemeralAdminKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(dev.config.adminApiKey).toBe(dev.ephemeralAdminKey);
    expect(withEphemeralAdminKey(makeTestConfig()).ephemeralAdminKey).not.toBe(dev.ephemeralAdminKey);
    // Passed as `--admin-key "$KEY"` (docs/conformance.md): a key beginning with `-` would be read as an option.
    // One in 64 would begin so; none of 2,000 may.
    const keys = Array.from({ length: 2000 }, () => withEphemeralAdminKey(makeTestConfig()).ephemeralAdminKey!);
    expect(keys.filter((key) => key.startsWith('-'))).toEqual([]);
    expect(keys.every((key) => /^[A-Za-z0-9_-]{32}$/.test(key))).toBe(true);
    expect(withEphemeralAdminKey(makeTestConfig({ production: true }))).toMatchObject({ ephemeralAdminKey: undefined, config: { adminApiKey: undefined } });
    const set = withEphemeralAdminKey(makeTestConfig({ adminApiKey: 'a-key-of-the-operator-0123' }));
    expect(set).toMatchObject({ ephemeralAdminKey: undefined, config: { adminApiKey: 'a-key-of-the-operator-0123' } });
    const banner = startupBanner(set.config, { address: 'http://127.0.0.1:3000' });
    expect(banner).toContain('console: http://127.0.0.1:3000/console (sign in with ADMIN_API_KEY)');
    expect(banner).not.toContain('a-key-of-the-operator-0123');
  });

  it('tells a start without the serving Node options which ones it lacks, and says nothing when it has them', () => {
    expect(missingServingFlags(['--disable-proto=throw'])).toEqual(['--no-memory-reducer']);
    expect(missingServingFlags(['--disable-proto=throw', '--no-memory-reducer'])).toEqual([]);
    const without = startupBanner(makeTestConfig(), { address: 'http://127.0.0.1:3000', missingNodeFlags: ['--no-memory-reducer'] });
    expect(without).toContain('node was started without --no-memory-reducer: ');
    expect(without).toContain('node --no-memory-reducer bin/collab-host.js serve');
    expect(startupBanner(makeTestConfig(), { address: 'http://127.0.0.1:3000', missingNodeFlags: [] })).not.toContain('started without');
  });

  it('says how to load a directory when there is no user', () => {
    const banner = startupBanner(makeTestConfig(), { address: 'http://127.0.0.1:3000', hasUsers: false });
    expect(banner).not.toContain('curl');
    expect(banner).toContain('collab-host import FILE');
  });

  it('in production, with users stored, shows no token and does not say the directory is empty', () => {
    const banner = startupBanner(makeTestConfig({ production: true, publicUrl: 'https://collab.example.com' }), { address: 'http://127.0.0.1:3000', hasUsers: true });
    expect(banner).not.toContain('curl');
    expect(banner).not.toContain('no users yet');
    expect(banner).not.toContain('export ');
    expect(banner.split('\n').slice(0, 2)).toEqual(['collab-host listening on http://127.0.0.1:3000', '  database: sqlite::memory:']);
  });

  it('states the set-up: database with its password redacted, file storage, directory sources, channels, platform', () => {
    const config = loadConfig({
      TOKEN_SECRET: 'banner-token-secret-0123456789',
      DATABASE_URL: 'postgres://app:s3cret-pw@db.internal:5432/collab',
      FILE_STORAGE: 's3://files/collab',
      S3_ENDPOINT: 'http://minio:9000',
      SCIM_TOKEN: 'scim-token-0123456789abcdef',
      SCIM_TEAM_ID: 'acme',
      LDAP_URL: 'ldaps://ldap.example.com',
      LDAP_BASE_DN: 'dc=example,dc=com',
      LDAP_TEAM_ID: 'corp',
      LDAP_SYNC_INTERVAL: '15m',
      SMTP_URL: 'smtp://mailer:mail-pw@mail.example.com',
      MAIL_FROM: 'collab@example.com',
      NOTIFY_WEBHOOK_URLS: 'https://hooks.example.com/a,https://hooks.example.com/b',
      PLATFORM_API_URL: 'https://platform.example.com',
    });
    const banner = startupBanner(config, { address: 'http://0.0.0.0:3000', user: { id: 'zhangsan', token: 'abc.def.ghi' }, ephemeralAdminKey: 'key-of-this-start' });
    expect(banner.split('\n').slice(0, 6)).toEqual([
      'collab-host listening on http://0.0.0.0:3000',
      '  database: postgres://app:[redacted]@db.internal:5432/collab',
      '  file storage: s3://files/collab at http://minio:9000',
      '  directory sources: SCIM at http://127.0.0.1:3000/scim/v2 for team acme (bearer SCIM_TOKEN); LDAP ldaps://ldap.example.com for team corp (every 15m)',
      '  notification channels: 2 webhooks, e-mail from collab@example.com',
      '  platform API: https://platform.example.com',
    ]);
    expect(banner).not.toMatch(/s3cret-pw|mail-pw|scim-token-0123456789abcdef/);
    // One line to paste, and every example in the docs works as written.
    expect(banner).toContain('\n  export BASE=http://127.0.0.1:3000 TOKEN=abc.def.ghi KEY=key-of-this-start\n');
  });

  it('says what is not set up, naming the variables that would', () => {
    const banner = startupBanner(makeTestConfig(), { address: 'http://127.0.0.1:3000', hasUsers: false });
    expect(banner).toContain('  file storage: in the database\n');
    expect(banner).toContain('  directory sources: none besides imports and the management API (SCIM_TOKEN, LDAP_URL)\n');
    expect(banner).toContain('  notification channels: none (NOTIFY_WEBHOOK_URLS, SMTP_URL, NOTIFY_*_WEBHOOK)\n');
    expect(banner).toContain('  platform API: not configured (PLATFORM_API_URL)\n');
  });
});
