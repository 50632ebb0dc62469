import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // A guard against hangs, not a speed check (benchmarks measure speed): generous for a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a state (a page drawn, a row processed); it does not time it (default 1 s).
    expect: { poll: { timeout: 30_000 } },
    // Two cores: more workers only fight over them.
    maxWorkers: 2,
  },
});
