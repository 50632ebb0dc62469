import { type SearchKeyword, isShortKeyword } from './search-keyword.js';
import type { PageRequest, Paged } from './types.js';

/**
 * The matching and ranking rules of @-mention search, one place for every implementation of the search
 * port. collab-host's read model computes them here (src/directory/read-model/); a host application's
 * directory may call `matchTier` directly.
 *
 * A candidate is matched on its name and, for users, the local part of the e-mail address (both lower
 * case), and on the pinyin keys of its name (full pinyin and initials, src/directory/search-keys.ts):
 *   0 exact      the name or the e-mail local part equals the keyword
 *   1 prefix     one of them starts with the keyword
 *   2 substring  one of them contains the keyword
 *   3 pinyin     the full pinyin or the initials start with the keyword (`hanmei`, `hmm` find 韩梅梅)
 *   4 pinyin     the full pinyin or the initials contain the keyword (keywords of 3+ characters only,
 *                so `me` does not find every 梅)
 * Lower tiers rank first; ties go by recent activity (per kind, see the port), then name, then id.
 * An empty keyword matches everything at tier 0.
 */
export const MATCH_TIERS = { exact: 0, prefix: 1, substring: 2, pinyinPrefix: 3, pinyinSubstring: 4 } as const;

export type MatchTier = (typeof MATCH_TIERS)[keyof typeof MATCH_TIERS];

/** What a candidate is matched on. `pinyin` and `initials` are '' for names without Chinese. */
export interface MatchFields {
  name: string;
  /** Users: the e-mail address (its local part is matched). */
  email?: string | null;
  pinyin: string;
  initials: string;
}

/** The tier of the candidate for the keyword, or null when it does not match. */
export function matchTier(keyword: SearchKeyword, fields: MatchFields): MatchTier | null {
  if (keyword.text === '') return MATCH_TIERS.exact;
  const local = fields.email ? emailLocalPart(fields.email) : null;
  return textsTier(keyword, fields.name.toLowerCase(), local, fields.pinyin, fields.initials);
}

/**
 * `matchTier` on texts already in lower case (`name`, and `local` the e-mail local part or null) and
 * the pinyin keys: what the name indexes keep per entry, so a candidate is checked with no allocation.
 * The keyword is not empty. `floor`: a tier the caller knows the candidate cannot beat (a name index
 * knows it from where the keyword's first 3 characters occur), whose better tiers are not checked.
 */
export function textsTier(keyword: SearchKeyword, name: string, local: string | null, pinyin: string, initials: string, floor: MatchTier = MATCH_TIERS.exact): MatchTier | null {
  const k = keyword.text;
  if (floor <= MATCH_TIERS.prefix) {
    if (name === k || local === k) return MATCH_TIERS.exact;
    if (name.startsWith(k) || (local !== null && local.startsWith(k))) return MATCH_TIERS.prefix;
  }
  if (floor <= MATCH_TIERS.substring && (name.includes(k) || (local !== null && local.includes(k)))) return MATCH_TIERS.substring;
  if (floor <= MATCH_TIERS.pinyinPrefix && ((pinyin !== '' && pinyin.startsWith(k)) || (initials !== '' && initials.startsWith(k)))) return MATCH_TIERS.pinyinPrefix;
  if (!isShortKeyword(keyword) && ((pinyin !== '' && pinyin.includes(k)) || (initials !== '' && initials.includes(k)))) return MATCH_TIERS.pinyinSubstring;
  return null;
}

/** The lower-case part before the `@` (the whole address when it has none). */
export function emailLocalPart(email: string): string {
  const at = email.indexOf('@');
  return (at >= 0 ? email.slice(0, at) : email).toLowerCase();
}

/**
 * For directories that search in memory (a host application's small directory, the example under
 * examples/): the matching items ranked by tier, ties kept in the order given (pass them in the kind's
 * tie order), and one page of them with the total.
 */
export function rankMatches<T>(keyword: SearchKeyword, items: readonly T[], fieldsOf: (item: T) => MatchFields, page: PageRequest): Paged<T> {
  const matched = items.flatMap((item, index) => {
    const tier = matchTier(keyword, fieldsOf(item));
    return tier === null ? [] : [{ item, tier, index }];
  });
  matched.sort((a, b) => a.tier - b.tier || a.index - b.index);
  return { total: matched.length, items: matched.slice(page.offset, page.offset + page.limit).map((entry) => entry.item) };
}
