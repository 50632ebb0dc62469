/**
 * What recording one distinct access decision costs SQLite (issue 21): CPU per `audit_log` row written as
 * the request path writes them (100-row statements at synchronous=NORMAL, WAL, automatic checkpoints).
 * `--mode indexes`: with `audit_by_file` and `audit_by_actor` written row by row (before migration 190);
 * `--mode batched`: without them, the (key, id) pairs written to tables of their own every `--batch` rows,
 * sorted, in statements of `--chunk` pairs (0: one INSERT … SELECT), the batches' CPU amortised per row.
 *
 *   npx tsx bench/audit-insert-cost.ts --db COPY.db --mode indexes|batched [--rows 50000] [--batch 50000] [--chunk 1000] [--prefill N]
 *
 * COPY.db is written to: a copy of a store whose `audit_log` still has the two indexes (or a file made
 * with just that table); `--prefill N` first fills `audit_log` to N rows of random files and actors.
 */
import Database from 'better-sqlite3';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    rows: { type: 'string', default: '50000' },
    batch: { type: 'string', default: '20000' },
    prefill: { type: 'string', default: '0' },
    mode: { type: 'string', default: 'indexes' },
    chunk: { type: 'string', default: '0' },
  },
});
if (values.db === undefined) throw new Error('--db COPY.db');
const ROWS = Number(values.rows);
const BATCH = Number(values.batch);
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const row = () => [
  '2026-11-26T12:00:00Z',
  'file_access',
  `u${1 + Math.floor(random() * 2000)}`,
  'user_token',
  `f${1 + Math.floor(random() * 200000)}`,
  'GET /files/:fileId',
  'readable,commentable',
  null,
];

const db = new Database(values.db);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('cache_size = -65536');
const cols = '(at, kind, actor_id, credential, file_id, action, permissions, details)';
const insert100 = db.prepare(`INSERT INTO audit_log ${cols} VALUES ${Array.from({ length: 100 }, () => '(?,?,?,?,?,?,?,?)').join(',')}`);

function prefill(target: number): void {
  const have = (db.prepare('SELECT count(*) AS n FROM audit_log').get() as { n: number }).n;
  db.transaction(() => {
    for (let n = have; n < target; n += 100) insert100.run(Array.from({ length: 100 }, row).flat());
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
}

function cpuMicros<T>(work: () => T): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

function writeRows(n: number, every?: () => void): void {
  for (let written = 0; written < n; written += 100) {
    insert100.run(Array.from({ length: 100 }, row).flat());
    if (every !== undefined && (written + 100) % BATCH === 0) every();
  }
  db.pragma('wal_checkpoint(PASSIVE)');
}

const mode = values.mode;
const count = (db.prepare('SELECT count(*) AS n FROM audit_log').get() as { n: number }).n;
console.log(`audit_log: ${count} rows`);
if (Number(values.prefill) > count) {
  prefill(Number(values.prefill));
  console.log(`prefilled to ${Number(values.prefill)}`);
}
if (mode === 'indexes') {
  const us = cpuMicros(() => writeRows(ROWS));
  console.log(`indexes row by row: ${(us / ROWS).toFixed(1)} µs CPU a row (${ROWS} rows)`);
} else if (mode === 'batched') {
  db.exec('DROP INDEX IF EXISTS audit_by_file; DROP INDEX IF EXISTS audit_by_actor');
  db.exec('CREATE TABLE IF NOT EXISTS audit_file_ids (file_id TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (file_id, id)) WITHOUT ROWID');
  db.exec('CREATE TABLE IF NOT EXISTS audit_actor_ids (actor_id TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (actor_id, id)) WITHOUT ROWID');
  const have = (db.prepare('SELECT count(*) AS n FROM audit_file_ids').get() as { n: number }).n;
  if (have === 0) {
    db.exec('INSERT INTO audit_file_ids SELECT file_id, id FROM audit_log WHERE file_id IS NOT NULL ORDER BY file_id, id');
    db.exec('INSERT INTO audit_actor_ids SELECT actor_id, id FROM audit_log WHERE actor_id IS NOT NULL ORDER BY actor_id, id');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  let mark = (db.prepare('SELECT max(id) AS m FROM audit_log').get() as { m: number }).m;
  const top = db.prepare('SELECT max(id) AS m FROM audit_log');
  const files = db.prepare('INSERT INTO audit_file_ids SELECT file_id, id FROM audit_log WHERE id > ? AND id <= ? AND file_id IS NOT NULL ORDER BY file_id, id');
  const actors = db.prepare('INSERT INTO audit_actor_ids SELECT actor_id, id FROM audit_log WHERE id > ? AND id <= ? AND actor_id IS NOT NULL ORDER BY actor_id, id');
  const CHUNK = Number(values.chunk);
  const pending = db.prepare('SELECT id, file_id, actor_id FROM audit_log WHERE id > ? AND id <= ?');
  const chunkInsert = (table: string, n: number) => db.prepare(`INSERT INTO ${table} VALUES ${Array.from({ length: n }, () => '(?,?)').join(',')} ON CONFLICT DO NOTHING`);
  const fileChunk = CHUNK > 0 ? chunkInsert('audit_file_ids', CHUNK) : undefined;
  const actorChunk = CHUNK > 0 ? chunkInsert('audit_actor_ids', CHUNK) : undefined;
  const inChunks = (table: string, full: Database.Statement, pairs: Array<[string, number]>) => {
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    for (let start = 0; start < pairs.length; start += CHUNK) {
      const part = pairs.slice(start, start + CHUNK);
      (part.length === CHUNK ? full : chunkInsert(table, part.length)).run(part.flat());
    }
  };
  let indexUs = 0;
  const index = () => {
    indexUs += cpuMicros(() => {
      const hi = (top.get() as { m: number }).m;
      if (CHUNK > 0) {
        const rows = pending.all(mark, hi) as Array<{ id: number; file_id: string; actor_id: string }>;
        inChunks(
          'audit_file_ids',
          fileChunk!,
          rows.map((r) => [r.file_id, r.id]),
        );
        inChunks(
          'audit_actor_ids',
          actorChunk!,
          rows.map((r) => [r.actor_id, r.id]),
        );
      } else {
        db.transaction(() => {
          files.run(mark, hi);
          actors.run(mark, hi);
        })();
      }
      mark = hi;
    });
  };
  const total = cpuMicros(() => writeRows(ROWS, index));
  console.log(`batched every ${BATCH}: ${(total / ROWS).toFixed(1)} µs CPU a row in all, of which the batches ${(indexUs / ROWS).toFixed(1)} (${ROWS} rows)`);
}
db.close();
