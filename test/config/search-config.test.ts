import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, testConfig } from '../../src/config.js';
import { defaultWorkers } from '../../src/config/search.js';

describe('SEARCH_WORKERS', () => {
  const load = (value?: string) => loadConfig({ TOKEN_SECRET: 'test-token-secret-0123456789', ...(value === undefined ? {} : { SEARCH_WORKERS: value }) });

  it('defaults to one per core beside the main thread (at least 1, at most 4), and takes 0 for none', () => {
    expect(defaultWorkers()).toBeGreaterThanOrEqual(1);
    expect(defaultWorkers()).toBeLessThanOrEqual(4);
    expect(load().search.workers).toBe(defaultWorkers());
    expect(load('0').search.workers).toBe(0);
    expect(load(' 3 ').search.workers).toBe(3);
    expect(testConfig().search.workers).toBe(defaultWorkers());
  });

  it('refuses anything but a whole number up to 32, in one line', () => {
    for (const bad of ['-1', '1.5', 'two', '33']) {
      expect(() => load(bad)).toThrow(ConfigError);
      expect(() => load(bad)).toThrow('SEARCH_WORKERS must be a whole number from 0 to 32');
    }
  });
});
