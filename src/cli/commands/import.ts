import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config.js';
import { importSnapshot } from '../../snapshot/import.js';
import { openDatabase } from '../../store/database.js';
import { CliError } from '../cli-error.js';

const USAGE = 'usage: collab-host import FILE [--replace]';

/**
 * `collab-host import FILE [--replace]`: loads a directory snapshot into DATABASE_URL in one transaction.
 * Upsert by id by default; `--replace` makes the directory exactly the snapshot. A snapshot that breaks
 * a rule is refused whole: every problem on stderr with its JSON path, exit 1, nothing written.
 */
export async function importCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args);
  if (positionals.length !== 1) throw new CliError(USAGE);
  const path = resolve(positionals[0]!);
  const snapshot = await readSnapshotFile(path);

  const config = loadConfig();
  const store = await openDatabase(config.databaseUrl);
  try {
    const result = await importSnapshot(store, snapshot, { replace: values.replace, baseDir: dirname(path) });
    if (!result.ok) {
      const lines = result.problems.map((problem) => `  ${problem.path}: ${problem.message}`);
      const count = result.problems.length === 1 ? '1 problem' : `${result.problems.length} problems`;
      process.stderr.write(`snapshot refused, nothing written (${count}):\n${lines.join('\n')}\n`);
      return 1;
    }
    const { teams, departments, users, files, grants, contents } = result.counts;
    const mode = values.replace ? 'replaced the directory with' : 'upserted';
    process.stdout.write(
      `${mode} ${plural(teams, 'team')}, ${plural(departments, 'department')}, ${plural(users, 'user')}, ` +
        `${plural(files, 'file')} (${plural(grants, 'grant')}, ${plural(contents, 'stored content')})\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

function parseCommandArgs(args: string[]) {
  try {
    return parseArgs({ args, options: { replace: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${USAGE}`);
  }
}

async function readSnapshotFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (error) {
    throw new CliError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
