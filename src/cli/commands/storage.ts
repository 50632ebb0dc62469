import { loadConfig } from '../../config/config.js';
import { describeLocation, parseStorageUrl, type StorageLocation } from '../../config/storage.js';
import { formatTime } from '../../directory/time.js';
import { createFileStorage, openBackend } from '../../storage/open-backend.js';
import type { FileStorage } from '../../storage/file-storage.js';
import { listOrphans } from '../../storage/orphans.js';
import { migrateObjects, verifyObjects, type ObjectProblem } from '../../storage/storage-migration.js';
import { openDatabase } from '../../store/connection/database.js';
import { SqlFileObjects } from '../../store/files/file-objects.js';
import { EXIT, parseCommandArgs, usageError } from '../command-args.js';
import { Progress } from '../progress.js';

const USAGE = `usage: collab-host storage migrate --to URL [--from URL] [--dry-run] [--quiet]
       collab-host storage verify
       collab-host storage orphans

The bytes of third-party files, in the back end FILE_STORAGE names (database, fs:DIR, s3://BUCKET/PREFIX).
  migrate   copy every stored file to URL, read each copy back and check its SHA-256; then switch
            FILE_STORAGE to URL (the command says what is left to do). Exit 1 if any file did not match.
    --to URL     where to copy: database, fs:DIR or s3://BUCKET/PREFIX (S3 settings as for FILE_STORAGE)
    --from URL   where bytes outside the database are now (default: FILE_STORAGE), e.g. after a switch
    --dry-run    say what would be copied; copy nothing
    --quiet      no progress (on a terminal: files and bytes done, rate, time left; otherwise one
                 summary line on stderr at the end)
  verify    read every stored file and check its size and SHA-256; exit 1 if any differs or is missing
  orphans   list the objects in FILE_STORAGE (fs:DIR or s3://) that belong to no stored file (left behind
            by removed files); nothing is removed`;

/** `collab-host storage migrate|verify|orphans`: moving, checking and tidying the bytes of third-party files. */
export async function storageCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      usage: USAGE,
      options: { to: { type: 'string' }, from: { type: 'string' }, 'dry-run': { type: 'boolean' }, quiet: { type: 'boolean' } },
      positionals: { min: 1, max: 1 },
    },
    args,
  );
  const action = positionals[0];
  if (action !== 'migrate' && action !== 'verify' && action !== 'orphans') throw usageError(`unknown action "${action}": migrate, verify or orphans`, USAGE);
  if (action !== 'migrate' && (values.to !== undefined || values.from !== undefined || values['dry-run'] || values.quiet)) {
    throw usageError(`${action} takes no options`, USAGE);
  }
  const location = (option: 'to' | 'from'): StorageLocation | undefined => {
    const text = values[option];
    if (text === undefined) return undefined;
    const parsed = parseStorageUrl(text);
    if (!parsed) throw usageError(`--${option} must be database, fs:DIR or s3://BUCKET/PREFIX, not "${text}"`, USAGE);
    return parsed;
  };
  const to = location('to');
  const from = location('from');
  if (action === 'migrate' && to === undefined) throw usageError('migrate needs --to URL', USAGE);

  const config = loadConfig();
  const store = await openDatabase(config.databaseUrl);
  const rows = new SqlFileObjects(store.db);
  const storage = createFileStorage(config, rows);
  const others = [to, from].filter((it): it is StorageLocation => it !== undefined).map((it) => openBackend(it, config.storage.s3, rows));
  try {
    if (action === 'orphans') return await printOrphans(storage);
    if (action === 'verify') {
      const result = await verifyObjects(storage);
      printProblems(result.problems);
      process.stdout.write(
        `checked ${result.checked} stored files (${result.bytes} bytes) in ${describeLocation(config.storage.location)}: ${result.problems.length === 0 ? 'all match' : `${result.problems.length} do not`}\n`,
      );
      return result.problems.length === 0 ? EXIT.ok : EXIT.failure;
    }
    const [target, source] = others as [(typeof others)[number], (typeof others)[number] | undefined];
    const dryRun = values['dry-run'] === true;
    const progress = new Progress(process.stderr, { unit: 'bytes', label: 'storage migrate', quiet: values.quiet === true });
    const totals = await rows.totals();
    progress.step(`${dryRun ? 'checking' : 'copying'} ${totals.files} stored files`, totals.bytes);
    const report = await migrateObjects(storage, target, { dryRun, ...(source ? { from: source } : {}), onObject: (object) => progress.advance(object.size) });
    progress.finish(report.problems.length > 0 ? `${report.problems.length} problems` : dryRun ? 'checked' : 'copied');
    printProblems(report.problems);
    const targetName = describeLocation(target.location);
    const verb = dryRun ? 'would copy' : 'copied';
    const checked = dryRun ? '' : ', each read back with its recorded SHA-256';
    const served = dryRun ? `${report.handedOver} would be served from there at once` : `${report.handedOver} now served from there`;
    process.stdout.write(`${verb} ${report.copied} files (${report.bytes} bytes) to ${targetName}${checked}; ${report.inPlace} already there; ${served}\n`);
    if (report.problems.length > 0) {
      process.stdout.write(`${report.problems.length} files did not come through (listed on stderr): fix them and run the migration again\n`);
      return EXIT.failure;
    }
    if (!dryRun) process.stdout.write(`${nextStep(describeLocation(config.storage.location), targetName)}\n`);
    return EXIT.ok;
  } finally {
    await Promise.allSettled([storage.close(), ...others.map((backend) => backend.close())]);
    await store.close();
  }
}

async function printOrphans(storage: FileStorage): Promise<number> {
  const where = describeLocation(storage.backend.location);
  const orphans = await listOrphans(storage);
  if (orphans === undefined) {
    process.stdout.write(`FILE_STORAGE=${where} keeps the bytes in their rows: nothing can be left behind\n`);
    return EXIT.ok;
  }
  for (const object of orphans) process.stdout.write(`${object.address}\t${object.size} bytes\tlast written ${formatTime(object.modifiedAt)}\n`);
  const bytes = orphans.reduce((sum, object) => sum + object.size, 0);
  process.stdout.write(
    orphans.length === 0
      ? `no objects in ${where} without a stored file\n`
      : `${orphans.length} objects (${bytes} bytes) in ${where} belong to no stored file; remove those older than any upload in progress if you do not need them\n`,
  );
  return EXIT.ok;
}

function printProblems(problems: readonly ObjectProblem[]): void {
  for (const { fileId, problem } of problems) process.stderr.write(`${fileId}: ${problem}\n`);
}

/** What the operator does after a migration, by where FILE_STORAGE points. */
function nextStep(configured: string, target: string): string {
  if (configured === target) return `FILE_STORAGE already names ${target}: nothing left to switch.`;
  if (target === 'database') {
    return `every file is now served from the database; set FILE_STORAGE=database and restart collab-host so that new uploads go there too.`;
  }
  const from = configured === 'database' ? '' : ` --from ${configured}`;
  return (
    `next: set FILE_STORAGE=${target} and restart collab-host. Then run \`collab-host storage migrate${from} --to ${target}\` ` +
    `once more: it copies what was uploaded in between and hands the files still held in database rows over to ${target}.`
  );
}
