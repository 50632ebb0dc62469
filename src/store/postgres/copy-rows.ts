import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdentifier, type BulkStatementSpec } from '../statements/bulk-table.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/**
 * The pool's connections by server process id, so that a COPY can run on the connection of the Kysely
 * transaction it belongs to (Kysely does not hand its connections out): `SELECT pg_backend_pid()` inside
 * the transaction names it. Filled by src/store/connection/database.ts as the pool connects and removes them.
 */
const connections = new Map<number, pg.PoolClient>();

export function trackConnection(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const pid = (client as pg.PoolClient & { processID?: number }).processID;
    if (pid !== undefined) connections.set(pid, client);
  });
  pool.on('remove', (client) => {
    const pid = (client as pg.PoolClient & { processID?: number }).processID;
    if (pid !== undefined && connections.get(pid) === client) connections.delete(pid);
  });
}

const BACKEND_PID = new Statement('SELECT pg_backend_pid() AS pid');

/** Rows per chunk written to the COPY stream. */
const CHUNK_ROWS = 2_000;

/**
 * `COPY table (columns) FROM STDIN` of the rows on the connection of `db` (a plain insert, several times
 * faster than INSERT … unnest over large loads). False, nothing written, when that connection is not one
 * this process tracks (the caller inserts instead).
 */
export async function copyRows(db: Db, spec: BulkStatementSpec, rows: readonly (readonly unknown[])[]): Promise<boolean> {
  const [row] = await BACKEND_PID.run<{ pid: number }>(db, []);
  const client = row && connections.get(Number(row.pid));
  if (!client) return false;
  const columns = spec.columns.map(quoteIdentifier).join(', ');
  const stream = client.query(copyFrom(`COPY ${quoteIdentifier(spec.table)} (${columns}) FROM STDIN`));
  await pipeline(Readable.from(textChunks(rows)), stream);
  return true;
}

function* textChunks(rows: readonly (readonly unknown[])[]): Generator<string> {
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    let chunk = '';
    const end = Math.min(rows.length, start + CHUNK_ROWS);
    for (let index = start; index < end; index += 1) chunk += `${rows[index]!.map(copyValue).join('\t')}\n`;
    yield chunk;
  }
}

/** A value in COPY's text format: `\N` for null, backslash escapes for the characters it gives meaning to. */
export function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = String(value);
  return /[\\\n\r\t]/.test(text) ? text.replace(/[\\\n\r\t]/g, (character) => COPY_ESCAPES[character]!) : text;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
