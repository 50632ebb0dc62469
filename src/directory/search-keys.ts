import { pinyin } from 'pinyin-pro';

const HAN = /\p{Script=Han}/u;

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
  const full = pinyin(name, { toneType: 'none', type: 'array', nonZh: 'consecutive', v: true });
  const first = pinyin(name, { pattern: 'first', toneType: 'none', type: 'array', nonZh: 'consecutive', v: true });
  return { pinyin: squash(full), initials: squash(first) };
}

function squash(parts: string[]): string {
  return parts.join('').replace(/\s+/g, '').toLowerCase();
}
