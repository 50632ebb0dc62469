import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The command as tests run it: `src/cli/main.ts` through tsx, so a test sees the sources as they are now
 * and needs no build. `bin/collab-host.js` runs the same entry compiled (dist/); test/ops/build.test.ts
 * builds it and runs that.
 */
export const CLI_ENTRY = ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))];
export const CLI_TOKEN_SECRET = 'cli-test-token-secret-0123456789';

/**
 * The one line a long command (import, storage migrate) writes to stderr at its end when stderr is not a
 * terminal: what it did, how much, in how long.
 */
export function progressSummary(label: string, outcome: string): RegExp {
  const escaped = `${label}: ${outcome}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped}, [0-9.,]+ (rows|bytes|kB|MB|GB) in [0-9.]+ s( \\([0-9.,]+ (rows|bytes|kB|MB|GB)/s\\))?\n$`);
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of a command under test: only what it needs, so the developer's own settings do not leak in. */
export function cliEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl, TOKEN_SECRET: CLI_TOKEN_SECRET, ...extra };
}

/** Runs `collab-host ARGS` as a child process in `cwd` (a temp directory: no stray `.env`). */
export function runCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI_ENTRY, ...args], { cwd: options.cwd, env: options.env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running command (`entry`: another entry point than the sources; `command`: another program than node, such as npm) and resolves once its stdout matches `ready` (the time-out guards a hang: tsx start-up on a loaded machine takes long). */
export function startCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ready: RegExp; timeoutMs?: number; entry?: readonly string[]; command?: string },
): Promise<{ child: ChildProcess; stdout: () => string; stop: () => Promise<void> }> {
  const child = spawn(options.command ?? process.execPath, [...(options.entry ?? CLI_ENTRY), ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`timed out waiting for ${String(options.ready)}; stdout: ${stdout}; stderr: ${stderr}`));
    }, options.timeoutMs ?? 90_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (options.ready.test(stdout)) {
        clearTimeout(timer);
        resolve({ child, stdout: () => stdout, stop });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${String(code)} before ready; stdout: ${stdout}; stderr: ${stderr}`));
    });
  });
}
