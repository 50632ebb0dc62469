/**
 * `items` in the order of `compare`, a chunk of `chunk` items at a time, without holding the event loop
 * for the whole sort: runs of `run` items are sorted one at a time with `pause()` awaited after each,
 * then merged (a heap of the runs' first items not yet taken) as the chunks are asked for. Items equal
 * by `compare` come in no particular order. `items` is not changed.
 */
export async function* sortedInSlices<T>(
  items: readonly T[],
  compare: (a: T, b: T) => number,
  options: { run: number; chunk: number; pause: () => Promise<void> },
): AsyncGenerator<T[], void, void> {
  const { run, chunk, pause } = options;
  const runs: T[][] = [];
  for (let start = 0; start < items.length; start += run) {
    runs.push(items.slice(start, start + run).sort(compare));
    if (start + run < items.length) await pause();
  }
  const merge = new RunMerge(runs, compare);
  for (let next = merge.take(chunk); next.length > 0; next = merge.take(chunk)) yield next;
}

/** A k-way merge of sorted runs: a binary heap of run numbers by each run's next item. */
class RunMerge<T> {
  private readonly places: number[];
  private readonly heap: number[] = [];

  constructor(
    private readonly runs: readonly T[][],
    private readonly compare: (a: T, b: T) => number,
  ) {
    this.places = runs.map(() => 0);
    runs.forEach((items, number) => {
      if (items.length > 0) this.push(number);
    });
  }

  /** The next `count` items (fewer at the end). */
  take(count: number): T[] {
    const taken: T[] = [];
    while (taken.length < count && this.heap.length > 0) {
      const number = this.heap[0]!;
      const items = this.runs[number]!;
      taken.push(items[this.places[number]!]!);
      this.places[number] = this.places[number]! + 1;
      if (this.places[number]! < items.length) this.siftDown(0);
      else {
        const last = this.heap.pop()!;
        if (this.heap.length > 0) {
          this.heap[0] = last;
          this.siftDown(0);
        }
      }
    }
    return taken;
  }

  private head(number: number): T {
    return this.runs[number]![this.places[number]!]!;
  }

  private less(a: number, b: number): boolean {
    return this.compare(this.head(a), this.head(b)) < 0;
  }

  private push(number: number): void {
    const heap = this.heap;
    heap.push(number);
    for (let at = heap.length - 1; at > 0;) {
      const parent = (at - 1) >> 1;
      if (!this.less(heap[at]!, heap[parent]!)) break;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  }

  private siftDown(at: number): void {
    const heap = this.heap;
    for (;;) {
      const left = at * 2 + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && this.less(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && this.less(heap[right]!, heap[least]!)) least = right;
      if (least === at) return;
      [heap[at], heap[least]] = [heap[least]!, heap[at]!];
      at = least;
    }
  }
}
