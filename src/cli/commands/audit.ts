import { loadConfig } from '../../config/config.js';
import { formatTime } from '../../directory/time.js';
import { auditLog } from '../../store/audit/audit-log.js';
import { openDatabase } from '../../store/connection/database.js';
import type { TailPosition } from '../../store/statements/tail-order.js';
import { parseCommandArgs, usageError } from '../command-args.js';

const USAGE = `usage: collab-host audit export --since TIME [--until TIME]

Writes the audit log of DATABASE_URL to stdout as NDJSON, one entry per line, oldest first: access
decisions on files, management writes and directory changes (docs/operations.md, "Audit trail").

  --since TIME   entries at or after TIME (2026-01-31, 2026-01-31T08:00:00Z, any ISO 8601 time)
  --until TIME   entries before TIME (default: now)`;

/** Entries read per query while exporting. */
const PAGE = 1000;

/** `collab-host audit export --since TIME [--until TIME]`. */
export async function auditCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({ usage: USAGE, options: { since: { type: 'string' }, until: { type: 'string' } }, positionals: { min: 1, max: 1 } }, args);
  if (positionals[0] !== 'export') throw usageError(`unknown subcommand "${positionals[0]}"`, USAGE);
  if (values.since === undefined) throw usageError('export needs --since', USAGE);
  const since = parseTime('--since', values.since);
  const until = values.until === undefined ? undefined : parseTime('--until', values.until);

  const config = loadConfig();
  const store = await openDatabase(config.databaseUrl, { poolSize: 1 });
  try {
    let after: TailPosition | undefined;
    do {
      const page = await auditLog.list(store.db, { since, ...(until === undefined ? {} : { until }), ...(after === undefined ? {} : { after }), limit: PAGE });
      if (page.items.length > 0) await write(page.items.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
      after = page.next ?? undefined;
    } while (after !== undefined);
    return 0;
  } finally {
    await store.close();
  }
}

function parseTime(option: string, text: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw usageError(`${option} must be a time such as 2026-01-31 or 2026-01-31T08:00:00Z`, USAGE);
  return formatTime(ms);
}

/** Writes with back-pressure: an export of millions of lines never piles up in memory. */
function write(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once('drain', resolve).once('error', reject);
  });
}
