import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nameKeysAhead } from '../../src/directory/name-keys-ahead.js';
import { nameKeys, pinyinKeys, withKeysComputed } from '../../src/directory/search-keys.js';

/** Names as companies write them: Chinese, mixed with Latin and digits, spaces, readings by context, repeats. */
const PIECES = ['重庆', '银行', '张三', '李', '季度计划', 'Q3', ' v2', '行长', '乐', '音乐', '𠀋', 'ann', '（草稿）', '·', '2024'];
const NAMES = Array.from({ length: 2_000 }, (_, number) => {
  const pieces = [PIECES[number % PIECES.length]!, PIECES[(number * 7) % PIECES.length]!, number % 5 === 0 ? '' : PIECES[(number * 13) % PIECES.length]!];
  return `${pieces.join(number % 3 === 0 ? ' ' : '')}${number % 11 === 0 ? '' : String(number % 89)}`;
});

describe('pinyin keys computed ahead in a thread', () => {
  it('are the keys computed here, for every name with a Chinese character', async () => {
    const keys = await nameKeysAhead([...NAMES, ...NAMES.slice(0, 50), 7, null, 'Plain Latin'], { fromNames: 1 });
    expect(keys).toBeDefined();
    const chinese = [...new Set(NAMES.filter((name) => /\p{Script=Han}/u.test(name)))];
    expect(chinese.length).toBeGreaterThan(100);
    expect([...keys!.keys()].sort()).toEqual([...chinese].sort());
    for (const name of chinese) expect(keys!.get(name), name).toEqual(pinyinKeys(name));
    expect(NAMES[0]).toBe('重庆 重庆 ');
    expect(keys!.get(NAMES[0]!)).toEqual({ pinyin: 'chongqingchongqing', initials: 'cqcq' });
  });

  it('answer nameKeys while a write runs with them, and only then', async () => {
    const known = new Map([['张三', { pinyin: 'computed-ahead', initials: 'ca' }]]);
    expect(await withKeysComputed(known, async () => nameKeys('张三'))).toEqual({ pinyin: 'computed-ahead', initials: 'ca' });
    expect(nameKeys('张三')).toEqual({ pinyin: 'zhangsan', initials: 'zs' });
    await expect(withKeysComputed(known, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(nameKeys('张三')).toEqual({ pinyin: 'zhangsan', initials: 'zs' });
  });

  it('are not computed for a few names (the writer computes them)', async () => {
    expect(await nameKeysAhead(NAMES.slice(0, 100))).toBeUndefined();
    expect(await nameKeysAhead(['Ann', 'Bob'], { fromNames: 1 })).toBeUndefined();
  });

  it('are left to the writer when the thread cannot start, stops, answers something else or is late, which is said', async () => {
    const said: string[] = [];
    const onFailure = (failure: Error) => said.push(failure.message);
    expect(await nameKeysAhead(NAMES, { fromNames: 1, thread: new URL('./no-such-thread.js', import.meta.url), onFailure })).toBeUndefined();
    expect(said).toHaveLength(1);
    const dir = mkdtempSync(join(tmpdir(), 'name-keys-thread-'));
    try {
      const stops = join(dir, 'stops.mjs');
      writeFileSync(stops, "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', () => process.exit(3));\n");
      const short = join(dir, 'short.mjs');
      writeFileSync(
        short,
        "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', () => parentPort.postMessage({ pinyin: 'a\\nb', initials: 'a\\nb' }));\n",
      );
      const silent = join(dir, 'silent.mjs');
      writeFileSync(silent, "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', () => setInterval(() => {}, 1000));\n");
      expect(await nameKeysAhead(NAMES, { fromNames: 1, thread: pathToFileURL(stops), onFailure })).toBeUndefined();
      expect(await nameKeysAhead(NAMES, { fromNames: 1, thread: pathToFileURL(short), onFailure })).toBeUndefined();
      // A thread that never answers is given up at its time-out.
      expect(await nameKeysAhead(NAMES, { fromNames: 1, thread: pathToFileURL(silent), timeoutMs: 1, onFailure })).toBeUndefined();
      expect(said.slice(1)).toEqual([
        'the thread stopped (exit code 3) before it answered',
        'the pinyin thread answered something other than one line of keys per name',
        'the thread did not answer within 1 ms',
      ]);
      // Keys no longer wanted (the write was refused) are not a failure: nothing is said.
      const stop = new AbortController();
      const waiting = nameKeysAhead(NAMES, { fromNames: 1, thread: pathToFileURL(silent), signal: stop.signal, onFailure });
      stop.abort();
      expect(await waiting).toBeUndefined();
      expect(await nameKeysAhead(NAMES, { fromNames: 1, signal: stop.signal, onFailure })).toBeUndefined();
      expect(said).toHaveLength(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
