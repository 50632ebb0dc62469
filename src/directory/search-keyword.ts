/**
 * The keyword of a search, normalised once so every implementation of the search port compares the same
 * text: Unicode NFKC (full-width ＡＢＣ becomes ABC), control characters dropped, runs of white space
 * made one space, trimmed, lower case, at most MAX_KEYWORD_CHARS characters.
 */
export interface SearchKeyword {
  /** The normalised text; '' lists a kind's most relevant items. */
  text: string;
  /** Length in characters (code points), the unit SQL's length() and substr() count in. */
  length: number;
}

export const MAX_KEYWORD_CHARS = 100;

/**
 * Keywords up to this many characters take the short path: trigram indexes cannot serve them, so they
 * are looked up in the short-gram index (users, departments) or matched within a bounded scope (files).
 */
export const SHORT_KEYWORD_CHARS = 2;

export const EMPTY_KEYWORD: SearchKeyword = Object.freeze({ text: '', length: 0 });

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

export function normaliseKeyword(raw: string): SearchKeyword {
  const text = raw.normalize('NFKC').replace(CONTROL, ' ').replace(/\s+/gu, ' ').trim().toLowerCase();
  const chars = [...text].slice(0, MAX_KEYWORD_CHARS);
  return { text: chars.join(''), length: chars.length };
}

/** Whether the keyword is one or two characters long (see SHORT_KEYWORD_CHARS). */
export function isShortKeyword(keyword: SearchKeyword): boolean {
  return keyword.length > 0 && keyword.length <= SHORT_KEYWORD_CHARS;
}
