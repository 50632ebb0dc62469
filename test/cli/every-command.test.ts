import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, type CliRun } from './run-cli.js';

/**
 * Issue 10 finding 8: every command answers `--help` with its usage (exit 0, nothing else runs, `serve`
 * included) and a usage error with exit 2; the commands are read from `collab-host --help` itself, so a
 * new command is covered the day it is added.
 */
describe('every command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ch-cli-'));
  const env = cliEnv(`sqlite:${join(dir, 'store.db')}`);
  const cli = (...args: string[]) => runCli(args, { cwd: dir, env });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // 2 × 17 tsx processes of ~3 CPU-seconds each: a minute and more of both cores; a hang guard, not a speed check.
  it('answers --help with its usage and exit 0, and an unknown option with exit 2', { timeout: 300_000 }, async () => {
    const overview = await cli('--help');
    expect(overview.code).toBe(0);
    const commands = [...overview.stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((match) => match[1]!);
    expect(commands).toEqual(expect.arrayContaining(['serve', 'import', 'export', 'token', 'sign', 'create-doc', 'check', 'simulate', 'platform', 'migrate', 'sync', 'storage']));
    // Two at a time (two cores): seventeen at once starve every other test file running meanwhile.
    const runs: Array<{ command: string; help: CliRun; wrong: CliRun }> = [];
    const queue = [...commands];
    await Promise.all(
      [0, 1].map(async () => {
        for (let command = queue.shift(); command !== undefined; command = queue.shift())
          runs.push({ command, help: await cli(command, '--help'), wrong: await cli(command, '--no-such-option') });
      }),
    );
    for (const { command, help, wrong } of runs) {
      expect(help.code, `${command} --help: ${help.stderr}`).toBe(0);
      expect(help.stdout, command).toMatch(new RegExp(`^usage: collab-host ${command}\\b`));
      expect(wrong.code, `${command} --no-such-option: ${wrong.stdout}${wrong.stderr}`).toBe(2);
      expect(wrong.stderr, command).toMatch(/usage: collab-host/);
    }
  });

  it('sign refuses a scope the platform does not know', async () => {
    const run = await cli('sign', '--scope', 'foo');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^--scope must be license, not "foo"\nusage: collab-host sign/);
    expect(run.stdout).toBe('');
  });
});
