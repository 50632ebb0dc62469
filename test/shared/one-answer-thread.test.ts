import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { askThreadOnce } from '../../src/shared/one-answer-thread.js';

const dir = mkdtempSync(join(tmpdir(), 'one-answer-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A thread module whose message handler is `body` (`message` in scope, `parentPort` imported). */
function thread(name: string, body: string): URL {
  const path = join(dir, `${name}.mjs`);
  writeFileSync(path, `import { parentPort } from 'node:worker_threads';\nparentPort.once('message', (message) => { ${body} });\n`);
  return pathToFileURL(path);
}

/** Counts its ticks in the shared buffer it is sent, forever: stopped only from outside. */
const ticking = thread('ticking', 'const count = new Int32Array(message); setInterval(() => Atomics.add(count, 0, 1), 1);');

/** The ticks the thread counted so far. */
async function ticksOf(buffer: SharedArrayBuffer): Promise<number> {
  return Atomics.load(new Int32Array(buffer), 0);
}

describe('a thread asked for one answer', () => {
  it('answers with its first message', async () => {
    const doubled = thread('doubled', 'parentPort.postMessage(message.map((n) => n * 2)); parentPort.postMessage("second");');
    expect(await askThreadOnce(doubled, [1, 2, 3], { timeoutMs: 60_000 })).toEqual({ answered: true, answer: [2, 4, 6] });
  });

  it('says why there is no answer: no such module, a failure, an exit, a time-out', async () => {
    const missing = await askThreadOnce(new URL('./no-such-thread.mjs', import.meta.url), 1, { timeoutMs: 60_000 });
    expect(missing).toMatchObject({ answered: false, aborted: false });
    expect(!missing.answered && missing.failure).toBeInstanceOf(Error);

    const throws = await askThreadOnce(thread('throws', 'throw new Error("names too long")'), 1, { timeoutMs: 60_000 });
    expect(throws).toMatchObject({ answered: false, aborted: false });
    expect(!throws.answered && throws.failure.message).toBe('names too long');

    const exits = await askThreadOnce(thread('exits', 'process.exit(3)'), 1, { timeoutMs: 60_000 });
    expect(!exits.answered && exits.failure.message).toBe('the thread stopped (exit code 3) before it answered');

    const silent = await askThreadOnce(ticking, new SharedArrayBuffer(4), { timeoutMs: 5 });
    expect(silent).toMatchObject({ answered: false, aborted: false });
    expect(!silent.answered && silent.failure.message).toBe('the thread did not answer within 5 ms');
  });

  it('stops a thread that is no longer wanted, asked or not yet', async () => {
    const before = new AbortController();
    before.abort();
    expect(await askThreadOnce(ticking, new SharedArrayBuffer(4), { timeoutMs: 60_000, signal: before.signal })).toMatchObject({ answered: false, aborted: true });

    const during = new AbortController();
    const buffer = new SharedArrayBuffer(4);
    const asked = askThreadOnce(ticking, buffer, { timeoutMs: 60_000, signal: during.signal });
    // Running: it has counted.
    await expect.poll(() => ticksOf(buffer), { timeout: 30_000, interval: 5 }).toBeGreaterThan(0);
    during.abort();
    expect(await asked).toMatchObject({ answered: false, aborted: true });
    // Stopped: the count no longer moves (the test's thread would count on for ever otherwise).
    let last = -1;
    await expect
      .poll(
        () => {
          const now = Atomics.load(new Int32Array(buffer), 0);
          const still = now === last;
          last = now;
          return still;
        },
        { timeout: 30_000, interval: 50 },
      )
      .toBe(true);
  });

  it('moves what it is told to move instead of copying it', async () => {
    const echo = thread('echo', 'parentPort.postMessage(message.length)');
    const bytes = new Uint8Array(1_024);
    expect(await askThreadOnce(echo, bytes, { timeoutMs: 60_000, transfer: [bytes.buffer] })).toEqual({ answered: true, answer: 1_024 });
    expect(bytes.byteLength).toBe(0);
  });
});
