import { loadConfig } from '../../config/config.js';
import { Pruner, type RetentionWindows } from '../../retention/retention.js';
import { openDatabase } from '../../store/connection/database.js';
import { PRUNED_TABLES, type PrunedTable, type PruneCounts } from '../../store/retention/retention.js';
import { parseCommandArgs } from '../command-args.js';

const USAGE = `usage: collab-host prune [--dry-run]

Removes what is older than the retention windows from DATABASE_URL once, in batches (what \`serve\` does
every RETENTION_INTERVAL): events (EVENTS_RETENTION_DAYS), notifications and their deliveries
(NOTIFICATIONS_RETENTION_DAYS), activity (ACTIVITY_RETENTION_DAYS), presence (PRESENCE_RETENTION_HOURS),
the audit log (AUDIT_RETENTION_DAYS).
Pending events, events about scheduled reminders and notifications still being delivered are kept.
Prints what it removed per table.

  --dry-run   print what it would remove; change nothing`;

/** `collab-host prune [--dry-run]`. */
export async function pruneCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({ usage: USAGE, options: { 'dry-run': { type: 'boolean' } } }, args);
  const config = loadConfig();
  const store = await openDatabase(config.databaseUrl, { poolSize: 1 });
  try {
    const pruner = new Pruner(store.db, config.retention);
    const dryRun = values['dry-run'] === true;
    const counts = dryRun ? await pruner.preview() : await pruner.pruneAll();
    process.stdout.write(pruneReport(counts, config.retention, dryRun));
    return 0;
  } finally {
    await store.close();
  }
}

/** One line per table: `events: 12 removed (older than 90 days)`, or why nothing of it goes. */
export function pruneReport(counts: PruneCounts, windows: RetentionWindows, dryRun: boolean): string {
  const width = Math.max(...PRUNED_TABLES.map((table) => table.length));
  const lines = PRUNED_TABLES.map((table) => {
    const window = windowOf(table, windows);
    const label = `${table}:`.padEnd(width + 1);
    if (window.amount === 0) return `${label} kept forever (${window.variable}=0)`;
    return `${label} ${counts[table]} ${dryRun ? 'would be removed' : 'removed'} (older than ${window.amount} ${window.unit})`;
  });
  return `${dryRun ? 'dry run, nothing changed\n' : ''}${lines.join('\n')}\n`;
}

function windowOf(table: PrunedTable, windows: RetentionWindows): { variable: string; amount: number; unit: string } {
  switch (table) {
    case 'events':
      return { variable: 'EVENTS_RETENTION_DAYS', amount: windows.eventsDays, unit: 'days' };
    case 'notifications':
    case 'notification_deliveries':
      return { variable: 'NOTIFICATIONS_RETENTION_DAYS', amount: windows.notificationsDays, unit: 'days' };
    case 'activity':
      return { variable: 'ACTIVITY_RETENTION_DAYS', amount: windows.activityDays, unit: 'days' };
    case 'presence':
      return { variable: 'PRESENCE_RETENTION_HOURS', amount: windows.presenceHours, unit: 'hours' };
    case 'audit_log':
      return { variable: 'AUDIT_RETENTION_DAYS', amount: windows.auditDays, unit: 'days' };
  }
}
