import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, startCli } from '../cli/run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/**
 * The compiled command, built the way `npm run build` builds it (tsconfig.build.json) into a copy of the
 * package's layout in a temporary directory, so the worktree's own dist/ is left alone. bin/collab-host.js
 * runs there with plain `node`: no tsx, no TypeScript at run time.
 */
describe('the compiled collab-host command', { timeout: 180_000 }, () => {
  let pkg: string;
  let bin: string;
  beforeAll(async () => {
    pkg = mkdtempSync(join(tmpdir(), 'ch-build-'));
    mkdirSync(join(pkg, 'bin'));
    copyFileSync(join(ROOT, 'bin/collab-host.js'), join(pkg, 'bin/collab-host.js'));
    copyFileSync(join(ROOT, 'bin/disable-proto.js'), join(pkg, 'bin/disable-proto.js'));
    copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    symlinkSync(join(ROOT, 'demo'), join(pkg, 'demo'));
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')]);
    bin = join(pkg, 'bin/collab-host.js');
  }, 180_000);
  afterAll(() => rmSync(pkg, { recursive: true, force: true }));

  it('compiles to JavaScript with declarations for library use', () => {
    for (const file of ['dist/cli/main.js', 'dist/index.js', 'dist/index.d.ts']) expect(existsSync(join(pkg, file)), file).toBe(true);
    expect(readFileSync(join(pkg, 'dist/composition/server.js'), 'utf8')).not.toMatch(/from '[^']*\.ts'/);
  });

  it('runs commands and serves from dist/ with plain node', async () => {
    const version = await run(process.execPath, [bin, '--version'], { cwd: pkg });
    expect(version.stdout).toBe(`collab-host ${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);

    const dir = mkdtempSync(join(tmpdir(), 'ch-build-serve-'));
    const server = await startCli(['serve'], {
      cwd: dir,
      env: cliEnv(`sqlite:${join(dir, 'collab-host.db')}`, { PORT: '0', LOG_LEVEL: 'warn' }),
      ready: /curl -H .*\n/,
      entry: [bin],
    });
    try {
      const address = /listening on (\S+)/.exec(server.stdout())![1]!;
      const health = await fetch(`${address}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says how to build when dist/ is missing', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'ch-nobuild-'));
    mkdirSync(join(bare, 'bin'));
    copyFileSync(join(ROOT, 'bin/collab-host.js'), join(bare, 'bin/collab-host.js'));
    copyFileSync(join(ROOT, 'bin/disable-proto.js'), join(bare, 'bin/disable-proto.js'));
    const failed = await run(process.execPath, [join(bare, 'bin/collab-host.js'), '--version']).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    rmSync(bare, { recursive: true, force: true });
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('run `npm run build` first');
  });
});
