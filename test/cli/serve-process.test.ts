import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVING_NODE_FLAGS } from '../../src/cli/serving-flags.js';
import { cliEnv, startCli } from './run-cli.js';

/**
 * `collab-host serve` as operators start it: the compiled command (bin/collab-host.js runs dist/, which
 * `npm run build` makes) and `npm start`. Issue 26: a failed start must end, and npm's SIGTERM must reach the service.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/collab-host.js');

describe('serve as a process', { timeout: 120_000 }, () => {
  it('a second serve on a port in use exits 1 with one line soon after it fails, leaving nothing running', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), 'ch-serve-busy-'));
    try {
      const child = spawn(process.execPath, [BIN, 'serve'], {
        cwd: dir,
        env: cliEnv(`sqlite:${join(dir, 'collab-host.db')}`, { PORT: String(port), LOG_LEVEL: 'info' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let firstErrorAt: number | undefined;
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => {
        firstErrorAt ??= performance.now();
        stderr += chunk.toString('utf8');
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      const exitedAt = performance.now();
      expect(code).toBe(1);
      expect(stderr).toBe(`collab-host: cannot listen on 127.0.0.1:${port}: the port is in use (another collab-host?); stop it or set PORT\n`);
      expect(stdout).toBe('');
      // The failure is reported once everything is closed; then the process must not linger (a background task
      // polling a closed store kept it alive, logging every 500 ms).
      expect(exitedAt - firstErrorAt!).toBeLessThan(1000);
    } finally {
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the systemd unit and the Dockerfile under examples/deploy run the command this file starts, with the serving Node options', () => {
    expect(SERVING_NODE_FLAGS).toEqual(['--no-memory-reducer']);
    expect(readFileSync(join(ROOT, 'examples/deploy/collab-host.service'), 'utf8')).toMatch(/^ExecStart=\/usr\/bin\/node --no-memory-reducer bin\/collab-host\.js serve$/m);
    expect(readFileSync(join(ROOT, 'examples/deploy/Dockerfile'), 'utf8')).toMatch(/^CMD \["node", "--no-memory-reducer", "bin\/collab-host\.js", "serve"\]$/m);
  });

  it('npm start runs serve, and SIGTERM to npm stops the service (no node left behind)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-serve-npm-'));
    const server = await startCli(['start'], {
      cwd: ROOT,
      env: cliEnv(`sqlite:${join(dir, 'collab-host.db')}`, { PORT: '0', LOG_LEVEL: 'warn' }),
      ready: /curl -H .*\n/,
      entry: [],
      command: process.platform === 'win32' ? 'npm.cmd' : 'npm',
    });
    try {
      const address = /listening on (\S+)/.exec(server.stdout())![1]!;
      expect((await fetch(`${address}/healthz`)).status).toBe(200);
      // npm start passes the serving Node options: the banner has nothing to say about them.
      expect(server.stdout()).not.toContain('node was started without');
      await server.stop();
      // npm has exited; the service it started must be gone with it.
      await expect(fetch(`${address}/healthz`)).rejects.toThrow();
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
