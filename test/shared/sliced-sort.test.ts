import { describe, expect, it } from 'vitest';
import { sortedInSlices } from '../../src/shared/sliced-sort.js';

/** A deterministic stream of pseudo-random numbers (a linear congruential generator). */
function numbers(count: number, seed: number, spread: number): number[] {
  const found: number[] = [];
  let state = seed;
  for (let i = 0; i < count; i += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    found.push(state % spread);
  }
  return found;
}

async function collect<T>(chunks: AsyncIterable<T[]>): Promise<T[][]> {
  const all: T[][] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe('sorting in slices', () => {
  it('gives every item once, in order, in chunks of the size asked (the last one shorter), for any run size', async () => {
    for (const [count, run, chunk] of [
      [0, 4, 3],
      [1, 4, 3],
      [10, 4, 3],
      [100, 7, 10],
      [1000, 64, 100],
      [1000, 1000, 1000],
      [1000, 5000, 7],
      [4097, 256, 1000],
    ] as const) {
      const items = numbers(count, count + run, 50).map((value, at) => [String(value).padStart(2, '0'), at] as const);
      const compare = (a: readonly [string, number], b: readonly [string, number]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]);
      const before = [...items];
      const chunks = await collect(sortedInSlices(items, compare, { run, chunk, pause: () => Promise.resolve() }));
      const label = `${count} items, runs of ${run}, chunks of ${chunk}`;
      expect(chunks.flat(), label).toEqual([...items].sort(compare));
      expect(
        chunks.slice(0, -1).every((part) => part.length === chunk),
        label,
      ).toBe(true);
      expect(chunks.at(-1)?.length ?? 0, label).toBeLessThanOrEqual(chunk);
      expect(items, label).toEqual(before);
    }
  });

  it('lets other work run between its runs, and sorts no more than a run before it does', async () => {
    const items = numbers(10_000, 7, 1_000_000);
    const sortedRuns: number[] = [];
    let pauses = 0;
    const compare = (a: number, b: number) => {
      sortedRuns[pauses] = (sortedRuns[pauses] ?? 0) + 1;
      return a - b;
    };
    const chunks = sortedInSlices(items, compare, {
      run: 1000,
      chunk: 500,
      pause: () => {
        pauses += 1;
        return Promise.resolve();
      },
    });
    const first = await chunks.next();
    expect(first.value).toHaveLength(500);
    // Ten runs, a pause after each but the last; each stretch between pauses compared within one run only.
    expect(pauses).toBe(9);
    expect(sortedRuns.slice(0, 9).every((comparisons) => comparisons < 1000 * 14)).toBe(true);
    const rest = await collect(chunks);
    expect([first.value as number[], ...rest].flat()).toEqual([...items].sort((a, b) => a - b));
  });
});
