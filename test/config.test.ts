import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

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

  it('stops on a malformed value with one line naming the variable and the rule', () => {
    expect(refusal({ PLATFORM_API_URL: 'platform.example.com' })).toBe('PLATFORM_API_URL must start with http(s)://');
    expect(refusal({ PORT: 'eighty' })).toBe('PORT must be a number from 0 to 65535');
    expect(refusal({ DATABASE_URL: 'mysql://localhost/db' })).toBe('DATABASE_URL must be sqlite:PATH, sqlite::memory: or postgres://…');
    expect(refusal({ SIGNATURE_REQUIRED: 'maybe' })).toBe('SIGNATURE_REQUIRED must be true or false');
    expect(refusal({ TOKEN_TTL: 'forever' })).toMatch(/^TOKEN_TTL must be a duration/);
    expect(refusal({ TOKEN_SECRET: 'short' })).toBe('TOKEN_SECRET must be at least 16 characters');
    expect(refusal({ NOTIFY_WEBHOOK_URLS: 'ftp://x' })).toMatch(/^NOTIFY_WEBHOOK_URLS must be/);
    expect(refusal({ HEADER_BRAND: 'X-Bad' })).toMatch(/^HEADER_BRAND must be/);
    expect(refusal({ FILE_URL_TEMPLATE: 'https://oa.example.com/doc' })).toBe('FILE_URL_TEMPLATE must contain {fileId}');
    for (const message of [refusal({ PORT: '70000' }), refusal({ PUBLIC_URL: 'collab' })]) expect(message).not.toContain('\n');
  });

  it('requires real secrets in production, and refuses one key for tokens and signatures', () => {
    expect(refusal({ NODE_ENV: 'production' })).toBe('APP_ID is required when NODE_ENV=production');
    expect(refusal({ NODE_ENV: 'production', APP_ID: 'a', APP_SECRET: 'app-secret-0123456789' })).toBe(
      'TOKEN_SECRET is required when NODE_ENV=production',
    );
    expect(refusal({ APP_SECRET: 'same-secret-0123456789', TOKEN_SECRET: 'same-secret-0123456789' })).toBe('TOKEN_SECRET must differ from APP_SECRET');
  });
});
