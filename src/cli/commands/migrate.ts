import { loadConfig } from '../../config/config.js';
import { redactDatabaseUrl } from '../../store/connection/availability.js';
import { openDatabase } from '../../store/connection/database.js';
import { DatabaseTooNewError } from '../../store/schema/migration-runner.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs } from '../command-args.js';

const USAGE = `usage: collab-host migrate [--status]

Applies the pending migrations of the database at DATABASE_URL, in order (what \`collab-host serve\` does on
start unless MIGRATE_ON_START=false). Refuses a database migrated by a newer version of collab-host.

  --status   list the applied, pending and unknown (newer) migrations; change nothing`;

/** `collab-host migrate [--status]`. */
export async function migrateCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({ usage: USAGE, options: { status: { type: 'boolean' } } }, args);
  const config = loadConfig();
  const where = redactDatabaseUrl(config.databaseUrl);
  const store = await openDatabase(config.databaseUrl, { migrate: false, allowNewer: values.status === true, poolSize: 1 });
  try {
    if (values.status) {
      const { applied, pending, unknown } = await store.migrations.status();
      const lines = [
        `database ${where}: ${applied.length} applied, ${pending.length} pending${unknown.length > 0 ? `, ${unknown.length} unknown to this version` : ''}`,
        ...applied.map((m) => `applied  ${m.name}  ${m.appliedAt.toISOString()}`),
        ...pending.map((name) => `pending  ${name}`),
        ...unknown.map((name) => `unknown  ${name}  (migrated by a newer version of collab-host)`),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    }
    const done = await store.migrations.migrateToLatest();
    process.stdout.write(done.length === 0 ? `database ${where} is up to date\n` : `${done.map((name) => `applied  ${name}`).join('\n')}\ndatabase ${where} is up to date\n`);
    return 0;
  } catch (error) {
    if (error instanceof DatabaseTooNewError) throw new CliError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}
