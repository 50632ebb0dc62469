import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** What one `compactHeap` did: how long it took (ms) and the V8 heap before and after, in bytes. */
export interface HeapCompaction {
  ms: number;
  heapUsedBefore: number;
  heapUsedAfter: number;
  heapTotalAfter: number;
}

let collect: (() => void) | undefined;

/**
 * A full garbage collection now that also compacts the old generation, so that the pages the garbage
 * held go back to the system. A whole load of the read model (`loadWholeModel`) leaves garbage (the rows
 * of every page); V8 keeps it while the process is idle, and a full collection of its own leaves the
 * survivors spread over half-empty pages (docs/scaling.md "Memory of the directory in memory").
 * Called once after each whole load, never per request: it stops the process for as long as it runs.
 *
 * Node has no API for it: `gc` is exposed for a moment and taken from a fresh context (as jest's leak
 * detector does), and V8's compaction of every page is on only for this one collection.
 */
export function compactHeap(options: { garbageFirst?: boolean } = {}): HeapCompaction {
  if (!collect) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
      setFlagsFromString('--no-expose-gc');
    }
  }
  const started = performance.now();
  const heapUsedBefore = process.memoryUsage().heapUsed;
  // One collection: since the name indexes are built in a thread of their own, a load leaves ~50 MB of
  // garbage here instead of ~400 MB, and two ordinary collections first (to give that back before the
  // live objects are copied) no longer lowered the peak; they doubled the time (0.9-1.1 s against 0.5 s).
  // `garbageFirst` (the indexes were built on this thread after all): they run first, as they did.
  if (options.garbageFirst) {
    collect();
    collect();
  }
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
  const { heapUsed, heapTotal } = process.memoryUsage();
  return { ms: Math.round(performance.now() - started), heapUsedBefore, heapUsedAfter: heapUsed, heapTotalAfter: heapTotal };
}
