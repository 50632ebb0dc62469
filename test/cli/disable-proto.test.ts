import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/collab-host.js', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };

/**
 * Issue 20, finding 1, the process-wide hardening: the command runs as Node's `--disable-proto=throw`, so
 * no input key named `__proto__` reaches a prototype through any library. A probe loaded before the
 * command reports, as the process exits, whether `__proto__` could still be read.
 */
describe('the collab-host command runs with __proto__ disabled', () => {
  const dir = mkdtempSync(join(tmpdir(), 'collab-proto-'));
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    "process.on('exit', () => { let state; try { ({}).__proto__; state = 'open'; } catch (error) { state = error.code; } process.stderr.write(`proto:${state}\\n`); });\n",
  );
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (nodeArgs: string[]) => {
    const { stderr } = await promisify(execFile)(process.execPath, [...nodeArgs, '--import', pathToFileURL(probe).href, BIN, '--help'], { timeout: 60_000 });
    return stderr.trim().split('\n').at(-1);
  };

  it('started bare (npx collab-host, node bin/collab-host.js)', async () => {
    expect(await run([])).toBe('proto:ERR_PROTO_ACCESS');
  });

  it('started by npm start and npm run dev, which pass the flag to Node', async () => {
    expect(PACKAGE.scripts.start).toMatch(/^(exec )?node --disable-proto=throw --no-memory-reducer bin\/collab-host\.js serve$/);
    expect(PACKAGE.scripts.dev).toContain('--disable-proto=throw');
    expect(PACKAGE.scripts.dev).toContain('--no-memory-reducer');
    expect(await run(['--disable-proto=throw'])).toBe('proto:ERR_PROTO_ACCESS');
  });
});
