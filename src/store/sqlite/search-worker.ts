import { parentPort, workerData } from 'node:worker_threads';
import type { DirectorySearch } from '../../directory/search-port.js';
import { SqlDirectory } from '../sql-directory.js';
import { SqlitePreparedReads } from './prepared-reads.js';
import { openReadConnection, readKysely } from './read-connection.js';
import type { SearchCall, SearchReply, SearchWorkerData } from './search-workers.js';

/**
 * A search worker: its own read-only connection to the SQLite file and its own caches, answering batches
 * of search calls from the main thread (src/store/sqlite/search-workers.ts).
 */
const { path } = workerData as SearchWorkerData;
const reader = openReadConnection(path);
const db = readKysely(reader);
const directory = new SqlDirectory(db, { reads: new SqlitePreparedReads(reader) });

const port = parentPort;
if (!port) throw new Error('search-worker.ts runs as a worker thread');

port.on('message', (message: { id: number; calls: SearchCall[] }) => {
  void Promise.all(
    message.calls.map(async ({ method, query }): Promise<SearchReply> => {
      try {
        const search = directory[method] as (query: unknown) => ReturnType<DirectorySearch[typeof method]>;
        return { ok: true, value: await search.call(directory, query) };
      } catch (error) {
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    }),
  ).then((replies) => port.postMessage({ id: message.id, replies }));
});
port.postMessage({ ready: true });
