import type pg from 'pg';

/**
 * PostgreSQL: the sessions waiting on a lock that one of `blockers` (backend pids) holds, looked at from
 * `client`, which may be inside the transaction that holds the lock.
 */
export async function pgSessionsWaitingOn(client: pg.Client, blockers: readonly number[]): Promise<number[]> {
  // A transaction keeps its first look at pg_stat_activity until it ends: without a fresh one, a session
  // opened after that look (a pool's new connection) would never be listed.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const waiting = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE pg_blocking_pids(pid) && $1::integer[]', [blockers]);
  return waiting.rows.map((row) => row.pid);
}
