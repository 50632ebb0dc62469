import { describe, expect, it } from 'vitest';
import { topRanked } from '../../src/directory/read-model/top-ranked.js';

describe('the first entries of a ranking', () => {
  it('are those a full sort puts first, in order, for any size and page end', () => {
    let state = 7;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const order = (a: { tier: number; id: number }, b: { tier: number; id: number }) => a.tier - b.tier || a.id - b.id;
    for (const length of [0, 1, 5, 50, 400, 3000]) {
      const items = Array.from({ length }, (_, id) => ({ tier: Math.floor(next() * 5), id }));
      for (const count of [0, 1, 3, 6, 40, 1000]) {
        expect(topRanked(items, count, order), `${length} ${count}`).toEqual([...items].sort(order).slice(0, count));
      }
    }
  });
});
