import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startupBanner } from '../../src/cli/startup-banner.js';

describe('SEARCH_WORKERS (deprecated: searches run from memory)', () => {
  const load = (env: Record<string, string> = {}) => loadConfig({ TOKEN_SECRET: 'test-token-secret-0123456789', ...env });
  const warnings = (banner: string) => banner.split('\n').filter((line) => line.includes('SEARCH_WORKERS'));

  it('is accepted with any value, old or malformed, and says so in one warning line of the banner', () => {
    for (const value of ['0', '4', '33', 'two']) {
      const config = load({ SEARCH_WORKERS: value });
      expect(config.deprecations).toEqual([
        'warning: SEARCH_WORKERS is deprecated and ignored: searches are answered from the read model in memory, on the main thread (docs/scaling.md)',
      ]);
      expect(warnings(startupBanner(config, { address: 'http://127.0.0.1:3000' }))).toEqual(config.deprecations);
    }
  });

  it('unset, warns of nothing', () => {
    const config = load();
    expect(config.deprecations).toEqual([]);
    expect(warnings(startupBanner(config, { address: 'http://127.0.0.1:3000' }))).toEqual([]);
  });
});
