/**
 * Code point order: what `ORDER BY name` gives on both stores (SQLite's BINARY collation over UTF-8, and
 * PostgreSQL's C collation), so lists from memory come in the order they came from SQL. JavaScript's `<`
 * compares UTF-16 units, which puts characters outside the BMP below U+E000–U+FFFF.
 */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** By name, then by id (every list of people and departments). */
export function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  return compareText(a.name, b.name) || compareText(a.id, b.id);
}
