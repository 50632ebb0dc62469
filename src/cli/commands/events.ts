import { loadConfig } from '../../config/config.js';
import { eventPipelineOverStore, type Reprocessed } from '../../events/event-pipeline.js';
import { openDatabase } from '../../store/connection/database.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs, usageError } from '../command-args.js';

const USAGE = `usage: collab-host events reprocess ID | --outcome unprocessed|refused [--limit N] [--json]
       collab-host events stats [--json]

The event pipeline of DATABASE_URL (docs/events.md).
  reprocess ID         derive event ID's effects again under this version's rules (a refused event is
                       checked again with its real sender: a forged actor or a missing permission
                       stays refused); prints its new outcome
  reprocess --outcome  the same for every event with that outcome (at most --limit, default 10000)
  stats                events waiting, effect lag, outcomes, outbox and reminders
  --json               print JSON instead of lines`;

/** `collab-host events …`: re-processing and statistics of the event log, outside the server. */
export async function eventsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      usage: USAGE,
      options: { outcome: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
      positionals: { min: 1, max: 2 },
    },
    args,
  );
  const [subcommand, id] = positionals as [string, string | undefined];
  if (subcommand !== 'reprocess' && subcommand !== 'stats') throw usageError(`unknown subcommand "${subcommand}"`, USAGE);
  if (subcommand === 'stats' && (id !== undefined || values.outcome !== undefined)) throw usageError('stats takes no event id or --outcome', USAGE);
  if (subcommand === 'reprocess' && (id === undefined) === (values.outcome === undefined)) throw usageError('reprocess takes an event ID or --outcome, one of them', USAGE);
  if (id !== undefined && !/^[1-9]\d{0,15}$/.test(id)) throw usageError(`"${id}" is not an event id`, USAGE);
  if (values.outcome !== undefined && values.outcome !== 'unprocessed' && values.outcome !== 'refused') throw usageError('--outcome must be unprocessed or refused', USAGE);
  if (values.limit !== undefined && !/^[1-9]\d{0,6}$/.test(values.limit)) throw usageError('--limit must be a whole number from 1', USAGE);

  const config = loadConfig();
  const store = await openDatabase(config.databaseUrl);
  const pipeline = eventPipelineOverStore(store, config);
  const print = (value: unknown, lines: string[]) => process.stdout.write(values.json ? `${JSON.stringify(value, null, 2)}\n` : `${lines.join('\n')}\n`);
  try {
    if (subcommand === 'stats') {
      const stats = await pipeline.stats();
      print(stats, [
        `waiting: ${stats.waiting.count} (oldest ${stats.waiting.oldestAgeMs} ms)`,
        `lag: p50 ${stats.lag.p50Ms ?? '-'} ms, p99 ${stats.lag.p99Ms ?? '-'} ms over the last ${stats.lag.sample} events`,
        `unprocessed: ${stats.log.unprocessed}, refused: ${stats.log.refused}`,
        `outbox: ${stats.outbox.pending} pending (oldest ${stats.outbox.oldestPendingAgeMs} ms), failed: ${JSON.stringify(stats.outbox.failedByReceiver)}`,
        `reminders: ${stats.reminders.due} due, ${stats.reminders.late} late`,
      ]);
      return 0;
    }
    if (id !== undefined) {
      const done = await pipeline.reprocess(Number(id));
      if (!done) throw new CliError(`no event ${id} in DATABASE_URL`);
      print(done, [describe(done)]);
      return 0;
    }
    const done = await pipeline.reprocessOutcome(values.outcome as 'unprocessed' | 'refused', values.limit === undefined ? undefined : Number(values.limit));
    const tally = done.reduce<Record<string, number>>((counts, event) => ({ ...counts, [event.outcome]: (counts[event.outcome] ?? 0) + 1 }), {});
    print(done, [
      `re-processed ${done.length} event(s): ${
        Object.entries(tally)
          .map(([outcome, count]) => `${count} ${outcome}`)
          .join(', ') || 'none'
      }`,
      ...done.map(describe),
    ]);
    return 0;
  } finally {
    await pipeline.close();
    await store.close();
  }
}

function describe(event: Reprocessed): string {
  return `event ${event.id}: ${event.outcome}${event.problem ? ` (${event.problem})` : ''}`;
}
