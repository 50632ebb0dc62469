import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { loadConfig, type Config } from '../../config/config.js';
import { describeLocation } from '../../config/storage.js';
import { composeDirectoryChanges, printThreadFailure } from '../../composition/directory-writes.js';
import { describeDiff } from '../../directory-changes/describe-diff.js';
import { importSnapshot, type ImportCounts, type ImportResult } from '../../snapshot/import.js';
import { createFileStorage } from '../../storage/open-backend.js';
import { storeImportedContents, type MigrationReport } from '../../storage/storage-migration.js';
import { openDatabase, type OpenDatabase } from '../../store/connection/database.js';
import { SqlFileObjects } from '../../store/files/file-objects.js';
import { CliError } from '../cli-error.js';
import { Progress } from '../progress.js';
import { EXIT, parseCommandArgs } from '../command-args.js';

const USAGE = `usage: collab-host import FILE [--replace] [--dry-run] [--allow-empty] [--quiet]

Loads the directory snapshot FILE into DATABASE_URL in one transaction: all of it, or nothing. The
bytes of each contentFile (checked against FILE_MAX_SIZE and the .contents.json an export writes beside
them) then go to FILE_STORAGE.
  --replace      the directory becomes exactly FILE (default: upsert by id, other records stay)
  --dry-run      check FILE and print what would change; write nothing
  --allow-empty  allow an import that leaves a team with no active users by leaving them out (or
                 moving them), or removes every team; deactivations are never refused
  --quiet        no progress: on a terminal a line shows the phase, rows written, rate and time left;
                 otherwise one summary line goes to stderr at the end`;

/**
 * `collab-host import FILE`: a snapshot through the one validated path (source `snapshot`). A snapshot
 * that breaks a rule is refused whole: every problem on stderr with its JSON path, exit 1, nothing
 * written. On success (or with --dry-run) it prints what the snapshot holds and what changed.
 */
export async function importCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      usage: USAGE,
      options: {
        replace: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        'allow-empty': { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
      },
      positionals: { min: 1, max: 1 },
    },
    args,
  );
  const path = resolve(positionals[0]!);
  // A wrong setting is said before the snapshot is read (seconds and hundreds of MB for a company).
  const config = loadConfig();
  const progress = new Progress(process.stderr, { unit: 'rows', label: 'import', quiet: values.quiet });
  progress.step(`reading ${path}`);
  const snapshot = await readSnapshotFile(path);

  const store = await openDatabase(config.databaseUrl);
  try {
    const options = {
      replace: values.replace,
      dryRun: values['dry-run'],
      allowEmpty: values['allow-empty'],
      baseDir: dirname(path),
      maxContentBytes: config.storage.maxUploadBytes,
      progress,
    };
    const changes = composeDirectoryChanges(config, store, [], { onThreadFailure: printThreadFailure(process.stderr) });
    const result = await importSnapshot(changes, snapshot, options);
    if (result.ok) progress.finish(result.dryRun ? 'checked, nothing written' : 'written');
    else progress.abandon();
    if (!result.ok) {
      process.stderr.write(refusalText(result));
      return EXIT.failure;
    }
    const stored = result.dryRun ? undefined : await storeContents(config, store, contentFileIds(snapshot));
    const what = summary(result.counts);
    const head = result.dryRun
      ? `dry run, nothing written: the import would ${values.replace ? `replace the directory with ${what}` : `upsert ${what}`}`
      : `${values.replace ? 'replaced the directory with' : 'upserted'} ${what}`;
    process.stdout.write(`${[head, ...describeDiff(result.diff).map((line) => `  ${line}`)].join('\n')}\n`);
    if (result.statisticsProblem !== undefined) {
      process.stderr.write(
        `warning: the import is written, but the planner's statistics were not refreshed (${result.statisticsProblem}); SQLite plans from the ones it had until the next bulk change\n`,
      );
    }
    if (stored && stored.handedOver > 0) process.stdout.write(`  ${plural(stored.handedOver, 'stored content')} written to ${describeLocation(config.storage.location)}\n`);
    if (stored && stored.problems.length > 0) {
      for (const { fileId, problem } of stored.problems) process.stderr.write(`${fileId}: ${problem}\n`);
      process.stderr.write(
        `${plural(stored.problems.length, 'stored content')} stayed in the database (served from there); \`collab-host storage migrate --to ${describeLocation(config.storage.location)}\` moves them\n`,
      );
      return EXIT.failure;
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** Moves the imported bytes (written into their rows) to FILE_STORAGE, when that is not the database. */
async function storeContents(config: Config, store: OpenDatabase, fileIds: string[]): Promise<MigrationReport> {
  const storage = createFileStorage(config, new SqlFileObjects(store.db));
  try {
    return await storeImportedContents(storage, fileIds);
  } catch (error) {
    // The import has committed: its bytes are in the rows and served from there; say how to finish.
    const problem = `could not be written to ${describeLocation(config.storage.location)}: ${(error as Error).message}`;
    return { copied: 0, bytes: 0, inPlace: 0, handedOver: 0, problems: fileIds.map((fileId) => ({ fileId, problem })) };
  } finally {
    await storage.close();
  }
}

/** The ids of the snapshot's files that bring bytes (`contentFile`); the snapshot passed validation. */
function contentFileIds(snapshot: unknown): string[] {
  const files = (snapshot as { files?: Array<{ id: string; contentFile?: string }> }).files ?? [];
  return files.filter((file) => file.contentFile !== undefined).map((file) => file.id);
}

function summary(counts: ImportCounts): string {
  const { teams, departments, users, files, grants, contents } = counts;
  return `${plural(teams, 'team')}, ${plural(departments, 'department')}, ${plural(users, 'user')}, ${plural(files, 'file')} (${plural(grants, 'grant')}, ${plural(contents, 'stored content')})`;
}

function refusalText(result: Extract<ImportResult, { ok: false }>): string {
  const lines = result.problems.map((problem) => `  ${problem.path}: ${problem.message}`);
  if (result.status === 400) return `snapshot refused, nothing written (${plural(result.problems.length, 'problem')}):\n${lines.join('\n')}\n`;
  const hint = result.code === 'directory_would_be_empty' ? ['pass --allow-empty to import it anyway'] : [];
  return `import refused (${result.code}), nothing written:\n${[...lines, ...hint].join('\n')}\n`;
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
