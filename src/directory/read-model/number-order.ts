/** Numbers in ascending order (`Array.prototype.sort` compares them as text without it). */
export function ascending(a: number, b: number): number {
  return a - b;
}
