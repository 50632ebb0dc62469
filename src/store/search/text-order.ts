/**
 * Compares two strings by Unicode code point, the order of SQLite's BINARY collation and PostgreSQL's
 * C collation, so ranking done in JavaScript and ORDER BY name agree. (JavaScript's `<` compares UTF-16
 * units, which puts characters above U+FFFF before U+E000–U+FFFF.)
 */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Ties of a ranking broken by name, then id. */
export function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  return compareText(a.name, b.name) || compareText(a.id, b.id);
}
