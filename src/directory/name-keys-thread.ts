import { parentPort } from 'node:worker_threads';
import { pinyinKeys } from './search-keys.js';

/**
 * The thread `nameKeysAhead` (name-keys-ahead.ts) starts: distinct names in, their pinyin keys out as two
 * texts of one line per name (keys hold no whitespace), which cross between threads far cheaper than
 * arrays of hundreds of thousands of small strings.
 */
parentPort?.once('message', (names: string[]) => {
  const pinyin: string[] = [];
  const initials: string[] = [];
  for (const name of names) {
    const keys = pinyinKeys(name);
    pinyin.push(keys.pinyin);
    initials.push(keys.initials);
  }
  parentPort!.postMessage({ pinyin: pinyin.join('\n'), initials: initials.join('\n') });
});
