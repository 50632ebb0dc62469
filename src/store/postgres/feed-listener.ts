import pg from 'pg';
import { DIRECTORY_CHANNEL } from '../schema/directory-tracking.js';

/** How long a lost LISTEN connection waits before it connects again (the poll covers the gap). */
const RECONNECT_MS = 1_000;

/**
 * Listens on the directory's NOTIFY channel (migration 110: every transaction that writes a directory
 * table sends one at its commit, with the written schema as payload) on a connection of its own, outside
 * the pool, and calls `wake` for each notification about `schema`. A lost connection is opened again after
 * a second; the caller keeps polling meanwhile. Returns the function that stops listening.
 */
export function listenForDirectoryChanges(pool: pg.Pool, wake: () => void, onError: (error: unknown) => void): () => Promise<void> {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (closed) return;
    const opened = new pg.Client(pool.options);
    let dropped = false;
    const drop = (error?: unknown) => {
      if (dropped) return;
      dropped = true;
      if (error !== undefined && !closed) onError(error);
      opened.removeAllListeners('notification');
      opened.end().catch(() => {});
      if (client === opened) client = undefined;
      if (!closed) {
        timer = setTimeout(() => void connect(), RECONNECT_MS);
        timer.unref();
      }
    };
    opened.on('error', drop);
    opened.on('end', () => drop());
    try {
      await opened.connect();
      const { rows } = await opened.query<{ schema: string }>('SELECT current_schema() AS schema');
      const schema = rows[0]?.schema;
      opened.on('notification', (message) => {
        if (message.channel === DIRECTORY_CHANNEL && (message.payload === undefined || message.payload === schema)) wake();
      });
      await opened.query(`LISTEN ${DIRECTORY_CHANNEL}`);
      if (closed) {
        await opened.end().catch(() => {});
        return;
      }
      client = opened;
      // Whatever was written while not listening.
      wake();
    } catch (error) {
      drop(error);
    }
  };
  void connect();

  return async () => {
    closed = true;
    if (timer) clearTimeout(timer);
    const listening = client;
    client = undefined;
    await listening?.end().catch(() => {});
  };
}
