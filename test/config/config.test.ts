import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadDotEnv, testConfig } from '../../src/config/config.js';
import { startupBanner } from '../../src/cli/startup-banner.js';

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('configuration', () => {
  it('has working defaults for a development start', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/collab-host.db',
      publicUrl: 'http://127.0.0.1:3000',
      tokenTtlSeconds: 86_400,
      signatureRequired: true,
      adminApiKey: undefined,
      platformApiUrl: undefined,
      fileUrlTemplate: 'http://127.0.0.1:3000/files/{fileId}',
      headerBrand: 'Platform',
      tokenSecretIsEphemeral: true,
    });
    expect(config.tokenSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every contract variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://db.example.com/collab',
      APP_ID: 'app',
      APP_SECRET: 'app-secret-0123456789',
      PLATFORM_API_URL: 'https://platform.example.com/',
      PUBLIC_URL: 'https://collab.example.com',
      TOKEN_SECRET: 'token-secret-0123456789',
      TOKEN_TTL: '2h',
      SIGNATURE_REQUIRED: 'false',
      ADMIN_API_KEY: 'admin-key-0123456789',
      FILE_URL_TEMPLATE: 'https://oa.example.com/doc/{fileId}',
      NOTIFY_WEBHOOK_URLS: 'https://a.example.com/hook, http://b.example.com/hook',
      NOTIFY_WEBHOOK_SECRET: 'hook-secret',
      HEADER_BRAND: 'Shimo',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      platformApiUrl: 'https://platform.example.com',
      publicUrl: 'https://collab.example.com',
      tokenTtlSeconds: 7200,
      signatureRequired: false,
      fileUrlTemplate: 'https://oa.example.com/doc/{fileId}',
      notifyWebhookUrls: ['https://a.example.com/hook', 'http://b.example.com/hook'],
      headerBrand: 'Shimo',
      tokenSecretIsEphemeral: false,
    });
  });

  it('takes a MySQL or MariaDB database URL', () => {
    for (const url of ['mysql://collab:secret@db.example.com:3306/collab', 'mariadb://collab@127.0.0.1/collab']) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
  });

  it('stops on a malformed value with one line naming the variable and the rule', () => {
    expect(refusal({ PLATFORM_API_URL: 'platform.example.com' })).toBe('PLATFORM_API_URL must start with http(s)://');
    expect(refusal({ PORT: 'eighty' })).toBe('PORT must be a number from 0 to 65535');
    expect(refusal({ DATABASE_URL: 'oracle://localhost/db' })).toBe('DATABASE_URL must be sqlite:PATH, sqlite::memory:, postgres://… or mysql://user:password@host:port/database');
    expect(refusal({ DATABASE_URL: 'mysql://localhost' })).toBe('DATABASE_URL must name the database: mysql://user:password@host:port/database');
    expect(refusal({ DATABASE_URL: 'mariadb://collab:secret@db.example.com:3306/' })).toBe('DATABASE_URL must name the database: mysql://user:password@host:port/database');
    expect(refusal({ SIGNATURE_REQUIRED: 'maybe' })).toBe('SIGNATURE_REQUIRED must be true or false');
    expect(refusal({ TOKEN_TTL: 'forever' })).toMatch(/^TOKEN_TTL must be a duration/);
    expect(refusal({ TOKEN_SECRET: 'short' })).toBe('TOKEN_SECRET must be at least 16 characters');
    expect(refusal({ NOTIFY_WEBHOOK_URLS: 'ftp://x' })).toMatch(/^NOTIFY_WEBHOOK_URLS must be/);
    expect(refusal({ HEADER_BRAND: 'X-Bad' })).toMatch(/^HEADER_BRAND must be/);
    expect(refusal({ FILE_URL_TEMPLATE: 'https://oa.example.com/doc' })).toBe('FILE_URL_TEMPLATE must contain {fileId}');
    for (const message of [refusal({ PORT: '70000' }), refusal({ PUBLIC_URL: 'collab' })]) expect(message).not.toContain('\n');
  });

  it('requires real secrets in production, and refuses one key for tokens and signatures', () => {
    expect(refusal({ NODE_ENV: 'production' })).toBe(
      ['APP_ID is required when NODE_ENV=production', 'APP_SECRET is required when NODE_ENV=production', 'TOKEN_SECRET is required when NODE_ENV=production'].join('\n'),
    );
    expect(refusal({ NODE_ENV: 'production', APP_ID: 'a', APP_SECRET: 'app-secret-0123456789' })).toBe('TOKEN_SECRET is required when NODE_ENV=production');
    expect(refusal({ APP_SECRET: 'same-secret-0123456789', TOKEN_SECRET: 'same-secret-0123456789' })).toBe('TOKEN_SECRET must differ from APP_SECRET');
  });

  it('refuses published demo values and low-entropy keys in production, in one line naming the variable and why', () => {
    const strong = {
      NODE_ENV: 'production',
      APP_ID: 'a',
      APP_SECRET: '7d1f0c5b9a3e48e2b6c1d0f9a8e7b6c5',
      TOKEN_SECRET: 'e3b0c44298fc1c149afbf4c8996fb924',
      ADMIN_API_KEY: 'Zq3vT8wPq1mXr7Lk2Nb9Yc4Hd6Jf0Gs5',
    };
    expect(loadConfig(strong).production).toBe(true);
    expect(refusal({ ...strong, APP_SECRET: 'demo-app-secret-change-me' })).toBe('APP_SECRET is refused when NODE_ENV=production: it is a published demo value');
    expect(refusal({ ...strong, TOKEN_SECRET: 'aaaaaaaaaaaaaaaa' })).toBe(
      'TOKEN_SECRET is refused when NODE_ENV=production: its estimated entropy is 0 bits, below 80 (make one with: openssl rand -hex 32)',
    );
    expect(refusal({ ...strong, ADMIN_API_KEY: 'aaaaaaaaaaaaaaaa' })).toMatch(/^ADMIN_API_KEY is refused when NODE_ENV=production: its estimated entropy is 0 bits/);
    expect(refusal({ ...strong, ADMIN_API_KEY: 'please-change-me-now' })).toBe('ADMIN_API_KEY is refused when NODE_ENV=production: it still says "change me"');
    expect(refusal({ ...strong, TOKEN_SECRET_PREVIOUS: '0123456789abcdef' })).toMatch(/^TOKEN_SECRET_PREVIOUS is refused .* 64 bits, below 80/);
    expect(refusal({ ...strong, SCIM_TOKEN: 'scim-demo-token-0123456789', SCIM_TEAM_ID: 't' })).toMatch(/^SCIM_TOKEN is refused .*published demo value$/);
    // Outside production the demo values still work, for the demo.
    expect(loadConfig({ APP_SECRET: 'demo-app-secret-change-me', ADMIN_API_KEY: 'aaaaaaaaaaaaaaaa' }).adminApiKey).toBe('aaaaaaaaaaaaaaaa');
  });

  it('warns at a production start when PUBLIC_URL is http:// (the console cookie cannot be Secure)', () => {
    const over = (publicUrl: string, production = true) => startupBanner({ ...testConfig(), production, publicUrl }, { address: 'http://127.0.0.1:3000', hasUsers: true });
    expect(over('http://collab.example.com')).toContain('warning: PUBLIC_URL is http://collab.example.com (http://): the console');
    expect(over('https://collab.example.com')).not.toContain('warning');
    expect(over('http://127.0.0.1:3000', false)).not.toContain('warning');
  });
});

describe('operations settings', () => {
  it('has defaults that testConfig() keeps, but for overload protection and rate limits (off there)', () => {
    expect(testConfig().limits).toMatchObject({ overloadEventLoopDelayMs: 0, manageRateLimit: undefined, tokenRateLimit: undefined, authFailureLimit: undefined });
    for (const config of [loadConfig({}), { ...testConfig(), limits: loadConfig({}).limits }]) {
      expect(config.logLevel).toBe('info');
      expect(config.database).toEqual({ poolSize: 10, migrateOnStart: true });
      expect(config.limits).toEqual({
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        connectionTimeoutMs: 120_000,
        keepAliveTimeoutMs: 72_000,
        overloadEventLoopDelayMs: 1000,
        retryAfterSeconds: 10,
        manageRateLimit: { max: 600, windowMs: 60_000 },
        tokenRateLimit: { max: 60, windowMs: 60_000 },
        authFailureLimit: { max: 10, windowMs: 60_000 },
      });
      expect(config.observability).toEqual({ metricsToken: undefined });
      expect(config.previousSecrets).toEqual({ tokenSecret: undefined, appSecret: undefined, notifyWebhookSecret: undefined });
    }
  });

  it('reads every operations variable', () => {
    const config = loadConfig({
      LOG_LEVEL: 'WARN',
      DATABASE_POOL_SIZE: '25',
      MIGRATE_ON_START: 'false',
      REQUEST_TIMEOUT: '45s',
      HEADERS_TIMEOUT: '5000ms',
      CONNECTION_TIMEOUT: '3m',
      KEEP_ALIVE_TIMEOUT: '5s',
      OVERLOAD_EVENT_LOOP_DELAY: '0',
      OVERLOAD_RETRY_AFTER: '30',
      RATE_LIMIT_MANAGE: 'off',
      RATE_LIMIT_TOKENS: '5 / 10s',
      RATE_LIMIT_AUTH_FAILURES: '5/5m',
      METRICS_TOKEN: 'metrics-token-0123456789',
      TOKEN_SECRET: 'token-secret-new-0123456789',
      TOKEN_SECRET_PREVIOUS: 'token-secret-old-0123456789',
      APP_SECRET_PREVIOUS: 'app-secret-old-0123456789',
      NOTIFY_WEBHOOK_SECRET_PREVIOUS: 'hook-secret-old',
    });
    expect(config.logLevel).toBe('warn');
    expect(config.database).toEqual({ poolSize: 25, migrateOnStart: false });
    expect(config.limits).toEqual({
      requestTimeoutMs: 45_000,
      headersTimeoutMs: 5000,
      connectionTimeoutMs: 180_000,
      keepAliveTimeoutMs: 5000,
      overloadEventLoopDelayMs: 0,
      retryAfterSeconds: 30,
      manageRateLimit: undefined,
      tokenRateLimit: { max: 5, windowMs: 10_000 },
      authFailureLimit: { max: 5, windowMs: 300_000 },
    });
    expect(config.observability.metricsToken).toBe('metrics-token-0123456789');
    expect(config.previousSecrets).toEqual({
      tokenSecret: 'token-secret-old-0123456789',
      appSecret: 'app-secret-old-0123456789',
      notifyWebhookSecret: 'hook-secret-old',
    });
    expect(Object.isFrozen(config.limits) && Object.isFrozen(config.previousSecrets)).toBe(true);
  });

  it('retention windows have defaults, and refuses a bad value naming the variable', () => {
    expect(loadConfig({}).retention).toEqual({ eventsDays: 90, notificationsDays: 30, activityDays: 90, presenceHours: 24, auditDays: 365, intervalMs: 3_600_000 });
    expect(loadConfig({ EVENTS_RETENTION_DAYS: '0', RETENTION_INTERVAL: '0' }).retention).toMatchObject({ eventsDays: 0, intervalMs: 0 });
    expect(refusal({ EVENTS_RETENTION_DAYS: 'ninety' })).toBe('EVENTS_RETENTION_DAYS must be a whole number from 0 to 36500');
    expect(refusal({ NOTIFICATIONS_RETENTION_DAYS: '-1' })).toBe('NOTIFICATIONS_RETENTION_DAYS must be a whole number from 0 to 36500');
    expect(refusal({ ACTIVITY_RETENTION_DAYS: '1.5' })).toBe('ACTIVITY_RETENTION_DAYS must be a whole number from 0 to 36500');
    expect(refusal({ PRESENCE_RETENTION_HOURS: 'a day' })).toBe('PRESENCE_RETENTION_HOURS must be a whole number from 0 to 876000');
    expect(refusal({ AUDIT_RETENTION_DAYS: '99999' })).toBe('AUDIT_RETENTION_DAYS must be a whole number from 0 to 36500');
    expect(refusal({ RETENTION_INTERVAL: 'hourly' })).toBe('RETENTION_INTERVAL must be a duration such as 500ms, 30s or 2m (0: off)');
  });

  it('stops on a malformed operations value with one line naming the variable and the rule', () => {
    expect(refusal({ LOG_LEVEL: 'verbose' })).toBe('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
    expect(refusal({ DATABASE_POOL_SIZE: '0' })).toBe('DATABASE_POOL_SIZE must be a whole number from 1 to 1000');
    expect(refusal({ MIGRATE_ON_START: 'later' })).toBe('MIGRATE_ON_START must be true or false');
    expect(refusal({ REQUEST_TIMEOUT: 'soon' })).toBe('REQUEST_TIMEOUT must be a duration such as 500ms, 30s or 2m');
    expect(refusal({ REQUEST_TIMEOUT: '0' })).toBe('REQUEST_TIMEOUT must be a duration such as 500ms, 30s or 2m');
    expect(refusal({ REQUEST_TIMEOUT: '5s', HEADERS_TIMEOUT: '10s' })).toBe('HEADERS_TIMEOUT must not be longer than REQUEST_TIMEOUT');
    expect(refusal({ OVERLOAD_EVENT_LOOP_DELAY: '-1' })).toBe('OVERLOAD_EVENT_LOOP_DELAY must be a duration such as 500ms, 30s or 2m (0: off)');
    expect(refusal({ RATE_LIMIT_TOKENS: '60 per minute' })).toBe('RATE_LIMIT_TOKENS must be requests per window such as 60/1m, or off');
    expect(refusal({ RATE_LIMIT_MANAGE: '0/1m' })).toBe('RATE_LIMIT_MANAGE must be requests per window such as 60/1m, or off');
    expect(refusal({ METRICS_TOKEN: 'short' })).toBe('METRICS_TOKEN must be at least 16 characters');
    expect(refusal({ TOKEN_SECRET_PREVIOUS: 'short' })).toBe('TOKEN_SECRET_PREVIOUS must be at least 16 characters');
    expect(refusal({ APP_SECRET: 'app-secret-0123456789', TOKEN_SECRET_PREVIOUS: 'app-secret-0123456789' })).toBe(
      'TOKEN_SECRET and TOKEN_SECRET_PREVIOUS must differ from APP_SECRET and APP_SECRET_PREVIOUS',
    );
    expect(refusal({ TOKEN_SECRET: 'token-secret-0123456789', APP_SECRET_PREVIOUS: 'token-secret-0123456789' })).toMatch(/^TOKEN_SECRET and/);
  });
});

describe('.env', () => {
  it("is read by Node's parser: quotes, trailing spaces and # comments dropped, set variables win", () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-env-'));
    const path = join(dir, '.env');
    writeFileSync(
      path,
      [
        '# a comment line',
        'APP_ID="quoted app"   ',
        "APP_SECRET='single quoted' # the demo secret",
        'HEADER_BRAND=Shimo # the production brand',
        'export PORT=4000',
        'HOST="has # inside"',
        'TOKEN_TTL=2h',
      ].join('\n'),
    );
    const env: Record<string, string | undefined> = { TOKEN_TTL: '1h' };
    loadDotEnv(path, env);
    expect(env).toEqual({
      APP_ID: 'quoted app',
      APP_SECRET: 'single quoted',
      HEADER_BRAND: 'Shimo',
      PORT: '4000',
      HOST: 'has # inside',
      TOKEN_TTL: '1h',
    });
    loadDotEnv(join(dir, 'absent.env'), env);
    expect(Object.keys(env)).toHaveLength(6);
  });
});
