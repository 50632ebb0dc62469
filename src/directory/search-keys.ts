import { pinyin } from 'pinyin-pro';

/** A name with a Chinese character has pinyin keys. */
export const HAN = /\p{Script=Han}/u;

/** Keys a name is found by besides itself: full pinyin and pinyin initials, lower case, no spaces. */
export interface NameKeys {
  pinyin: string;
  initials: string;
}

/**
 * Pinyin keys of a name, computed once on write. Names without Chinese characters get empty keys
 * (their plain text is searched directly). Readings follow pinyin-pro, which picks each character's
 * reading from its context (重庆 reads chong qing).
 */
export function nameKeys(name: string): NameKeys {
  if (!HAN.test(name)) return { pinyin: '', initials: '' };
  const ahead = computedAhead?.get(name);
  if (ahead) return ahead;
  // Names repeat (王伟, 李娜…): an import of a company computes each one once.
  const known = remembered.get(name);
  if (known) return known;
  if (remembered.size >= REMEMBERED_NAMES) remembered.clear();
  const keys = pinyinKeys(name);
  remembered.set(name, keys);
  return keys;
}

/** Names whose keys are kept, at most (a few MB). */
const REMEMBERED_NAMES = 20_000;
const remembered = new Map<string, NameKeys>();

/** Keys of a bulk write's names computed before it (name-keys-ahead.ts), while `withKeysComputed` runs. */
let computedAhead: ReadonlyMap<string, NameKeys> | undefined;

/** Runs `work` with `keys` answering `nameKeys` for their names (each the keys `nameKeys` computes). */
export async function withKeysComputed<T>(keys: ReadonlyMap<string, NameKeys> | undefined, work: () => Promise<T>): Promise<T> {
  if (!keys) return work();
  computedAhead = keys;
  try {
    return await work();
  } finally {
    if (computedAhead === keys) computedAhead = undefined;
  }
}

/** The pinyin keys of a name with Chinese characters, computed (see `nameKeys`). */
export function pinyinKeys(name: string): NameKeys {
  const full = pinyin(name, { toneType: 'none', type: 'array', nonZh: 'consecutive', v: true });
  const first = pinyin(name, { pattern: 'first', toneType: 'none', type: 'array', nonZh: 'consecutive', v: true });
  return { pinyin: squash(full), initials: squash(first) };
}

function squash(parts: string[]): string {
  return parts.join('').replace(/\s+/g, '').toLowerCase();
}
