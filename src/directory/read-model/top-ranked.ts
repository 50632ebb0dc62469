/**
 * The first `count` of `items` in the order of `compare`, sorted: a full sort when that is about as cheap,
 * else a bounded max-heap (a page near the top of thousands of matches sorts only what it shows).
 */
export function topRanked<T>(items: readonly T[], count: number, compare: (a: T, b: T) => number): T[] {
  if (count <= 0) return [];
  if (items.length <= count * 4) return [...items].sort(compare).slice(0, count);
  // heap[0] is the worst of the best `count` seen so far.
  const heap: T[] = [];
  const worse = (i: number, j: number) => compare(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number) => {
    const item = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = item;
  };
  for (const item of items) {
    if (heap.length < count) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (compare(item, heap[0]!) < 0) {
      heap[0] = item;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let worst = i;
        if (left < heap.length && worse(left, worst)) worst = left;
        if (right < heap.length && worse(right, worst)) worst = right;
        if (worst === i) break;
        swap(i, worst);
        i = worst;
      }
    }
  }
  return heap.sort(compare);
}
