import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, testConfig } from '../../src/config/config.js';

describe('console configuration', () => {
  it('defaults the session lifetime to 8 hours, also for testConfig()', () => {
    expect(loadConfig({}).console.sessionTtlSeconds).toBe(8 * 3600);
    expect(testConfig().console.sessionTtlSeconds).toBe(8 * 3600);
  });

  it('reads CONSOLE_SESSION_TTL as a duration', () => {
    expect(loadConfig({ CONSOLE_SESSION_TTL: '30m' }).console.sessionTtlSeconds).toBe(1800);
    expect(loadConfig({ CONSOLE_SESSION_TTL: '7d' }).console.sessionTtlSeconds).toBe(7 * 86400);
  });

  it('refuses a malformed or out-of-range lifetime with one line naming the variable', () => {
    for (const value of ['soon', '30s', '8d', '-1h']) {
      expect(() => loadConfig({ CONSOLE_SESSION_TTL: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ CONSOLE_SESSION_TTL: value })).toThrow('CONSOLE_SESSION_TTL must be a duration from 60s to 7d, such as 30m or 8h');
    }
  });
});
