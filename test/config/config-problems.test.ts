import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigProblems, loadConfig, misspelledVariables } from '../../src/config/config.js';
import { KNOWN_VARIABLES } from '../../src/config/known-variables.js';
import { runCli } from '../cli/run-cli.js';

const thrown = (env: Record<string, string>): ConfigError => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('loadConfig accepted the environment');
};

describe('configuration problems, all in one start', () => {
  it('lists every malformed variable, each on its line, in one error', () => {
    const error = thrown({ PORT: 'eighty', TOKEN_TTL: 'forever', PLATFORM_API_URL: 'ftp://platform', LOG_LEVEL: 'loud', HEADER_BRAND: 'two words' });
    expect(error).toBeInstanceOf(ConfigProblems);
    expect(error.message.split('\n')).toEqual([
      'PORT must be a number from 0 to 65535',
      'PLATFORM_API_URL must start with http(s)://',
      'TOKEN_TTL must be a duration such as 3600, 90s, 30m, 24h or 7d',
      'HEADER_BRAND must be a single word of letters and digits, such as Platform or Shimo',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ]);
  });

  it('lists every variable production requires that is missing, and a malformed one beside them', () => {
    const error = thrown({ NODE_ENV: 'production', DATABASE_POOL_SIZE: '0' });
    expect(error.message.split('\n')).toEqual([
      'APP_ID is required when NODE_ENV=production',
      'APP_SECRET is required when NODE_ENV=production',
      'TOKEN_SECRET is required when NODE_ENV=production',
      'DATABASE_POOL_SIZE must be a whole number from 1 to 1000',
    ]);
  });

  it('a single problem is reported as before: one line, a plain ConfigError', () => {
    const error = thrown({ PORT: '70000' });
    expect(error).not.toBeInstanceOf(ConfigProblems);
    expect(error.message).toBe('PORT must be a number from 0 to 65535');
  });

  it('suggests the variable a near-miss name stands for, and leaves other names alone', () => {
    const env = { DATABSE_URL: 'postgres://x', ADMIN_APIKEY: 'k', HOME: '/root', PATH: '/bin', LANG: 'C', HOSTNAME: 'vm', lower_case: 'x', PORT: '1' };
    expect(misspelledVariables(env, new Set(['ADMIN_APIKEY']))).toEqual([
      'ADMIN_APIKEY (in .env) is not a variable collab-host reads: did you mean ADMIN_API_KEY?',
      'DATABSE_URL is not a variable collab-host reads: did you mean DATABASE_URL?',
    ]);
  });

  it('knows every variable the configuration reads', () => {
    const files = [
      ...readdirSync('src/config')
        .filter((name) => name !== 'known-variables.ts')
        .map((name) => join('src/config', name)),
    ];
    const read = new Set<string>();
    for (const file of files) {
      for (const match of readFileSync(file, 'utf8').matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST)'|env\.([A-Z][A-Z0-9_]+)/g)) read.add((match[1] ?? match[2])!);
    }
    expect(read.size).toBeGreaterThan(90);
    expect([...read].filter((name) => !KNOWN_VARIABLES.has(name))).toEqual([]);
  });
});

describe('the command line', { timeout: 120_000 }, () => {
  it('serve reports every problem of the environment and .env at once (near-misses included), exit 1', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ch-config-'));
    writeFileSync(join(cwd, '.env'), 'DATABSE_URL=postgres://db.example/collab\nTOKEN_TTL=soon\n');
    const run = await runCli(['serve', '--port', 'eighty'], { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, ADMIN_APIKEY: 'x' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')).toEqual([
      'collab-host: ADMIN_APIKEY is not a variable collab-host reads: did you mean ADMIN_API_KEY?',
      'collab-host: DATABSE_URL (in .env) is not a variable collab-host reads: did you mean DATABASE_URL?',
      'PORT must be a number from 0 to 65535',
      'TOKEN_TTL must be a duration such as 3600, 90s, 30m, 24h or 7d',
      '',
    ]);
  });

  it('an unknown command suggests the nearest one', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ch-config-'));
    const run = await runCli(['serv'], { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe('collab-host: unknown command "serv": did you mean serve?');
  });
});
