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
 * Full garbage collections now, the last one also compacting the old generation, so that the pages the
 * garbage held go back to the system. A whole load of the read model (`loadWholeModel`) leaves about as much
 * garbage as the model it builds (the rows of every page); V8 keeps it while the process is idle, and a
 * full collection of its own leaves the survivors spread over half-empty pages: on the bench company,
 * ~1 GB resident after the load, ~570 MB after this, the peak unchanged (docs/scaling.md "Memory of the
 * directory in memory").
 * Called once after each whole load, never per request: it stops the process for as long as it runs.
 *
 * Node has no API for it: `gc` is exposed for a moment and taken from a fresh context (as jest's leak
 * detector does), and V8's compaction of every page is on only for this one collection.
 */
export function compactHeap(): HeapCompaction {
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
  // Two ordinary full collections first: they free the garbage and give its pages back, so the copying
  // of the live objects by the compacting one stays below the load's peak instead of adding to it.
  collect();
  collect();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
  const { heapUsed, heapTotal } = process.memoryUsage();
  return { ms: Math.round(performance.now() - started), heapUsedBefore, heapUsedAfter: heapUsed, heapTotalAfter: heapTotal };
}
