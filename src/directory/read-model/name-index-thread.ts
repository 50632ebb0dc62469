import { parentPort } from 'node:worker_threads';
import { NameIndex, type NameColumns } from './name-index.js';

/**
 * The thread `buildInThread` (name-index-threads.ts) starts: the columns of some name indexes in, their
 * postings out in one piece each, the arrays moved to the caller rather than copied.
 */
parentPort?.once('message', (columns: NameColumns[]) => {
  const packed = columns.map((one) => NameIndex.build(NameIndex.entriesOf(one)).packedPostings());
  parentPort!.postMessage(
    packed,
    packed.flatMap(({ starts, entries, tiers }) => [starts.buffer, entries.buffer, tiers.buffer] as ArrayBuffer[]),
  );
});
