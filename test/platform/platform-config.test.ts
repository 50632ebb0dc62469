import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, testConfig } from '../../src/config/config.js';

describe('the platform section of the configuration', () => {
  it('has defaults, and testConfig() works without any platform variable', () => {
    expect(testConfig().platform).toEqual({ callbackVersion: undefined, timeoutMs: 10_000, lang: 'zh-CN', seatSync: true });
    expect(loadConfig({ PLATFORM_CALLBACK_VERSION: 'v2', PLATFORM_TIMEOUT: '30s', PLATFORM_LANG: 'jp', PLATFORM_SEAT_SYNC: 'off' }).platform).toEqual({
      callbackVersion: 'v2',
      timeoutMs: 30_000,
      lang: 'jp',
      seatSync: false,
    });
  });

  it('refuses a malformed value with one line naming the variable and the rule', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ PLATFORM_CALLBACK_VERSION: '2' }, 'PLATFORM_CALLBACK_VERSION must be v1 or v2'],
      [{ PLATFORM_TIMEOUT: 'soon' }, 'PLATFORM_TIMEOUT must be a duration from 1s to 10m, such as 10s'],
      [{ PLATFORM_TIMEOUT: '1h' }, 'PLATFORM_TIMEOUT must be a duration from 1s to 10m, such as 10s'],
      [{ PLATFORM_LANG: 'ja' }, 'PLATFORM_LANG must be zh-CN, en or jp'],
      [{ PLATFORM_SEAT_SYNC: 'maybe' }, 'PLATFORM_SEAT_SYNC must be true or false'],
    ];
    for (const [env, message] of cases) expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });
});
