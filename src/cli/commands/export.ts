import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { finished } from 'node:stream/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { loadConfig } from '../../config/config.js';
import { countStoredContents } from '../../snapshot/export.js';
import { writeExportText } from '../../snapshot/export-text.js';
import { ContentExportError, ContentFolder } from '../../storage/content-folder.js';
import { createFileStorage } from '../../storage/open-backend.js';
import { openDatabase } from '../../store/connection/database.js';
import { SqlFileObjects } from '../../store/files/file-objects.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs } from '../command-args.js';

const USAGE = `usage: collab-host export [--out FILE]

Prints the directory of DATABASE_URL as a snapshot (JSON) on stdout.
  --out FILE  write FILE instead, and the stored bytes of third-party files (read from wherever
              FILE_STORAGE keeps them) into FILE-contents/ beside it, with their media type, size and
              SHA-256 in FILE-contents/.contents.json`;

/**
 * `collab-host export`: prints the directory as a snapshot (JSON) on stdout. With `--out FILE` it writes
 * FILE instead, and the bytes of stored third-party files into `FILE-contents/` beside it (named by
 * `contentFile`, read from the configured back end and checked against their hashes), so importing FILE
 * elsewhere brings the bytes too, whatever FILE_STORAGE is there. stdout cannot carry bytes: there
 * `contentFile` is left out and a note on stderr says how many contents were not exported.
 */
export async function exportCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({ usage: USAGE, options: { out: { type: 'string' } } }, args);

  const config = loadConfig();
  const store = await openDatabase(config.databaseUrl);
  try {
    if (values.out === undefined) {
      // The snapshot is read into a temporary file first: a pipe read slowly (`| less`, a paused
      // `| ssh`) would otherwise hold the database's snapshot open for as long as it takes.
      const spool = await mkdtemp(join(tmpdir(), 'collab-host-export-'));
      try {
        const text = join(spool, 'snapshot.json');
        await writeToFile(text, (write) => writeExportText(store.db, write));
        const stored = await countStoredContents(store.db);
        if (!(await copyToStdout(text))) return 1;
        if (stored > 0) {
          process.stderr.write(`note: ${stored} stored file content(s) not included (stdout carries JSON only); use --out FILE to export them\n`);
        }
        return 0;
      } finally {
        await rm(spool, { recursive: true, force: true });
      }
    }

    const out = resolve(values.out);
    const contentsName = `${basename(out).replace(/\.json$/i, '')}-contents`;
    const contentsDir = join(dirname(out), contentsName);
    // The snapshot and its bytes are written beside FILE and FILE-contents/ first, and take their names
    // once all is written: an export that fails leaves an earlier export at FILE whole.
    const partial = `${out}.partial-${process.pid}`;
    const partialContents = `${contentsDir}.partial-${process.pid}`;
    const storage = createFileStorage(config, new SqlFileObjects(store.db));
    try {
      const folder = new ContentFolder(storage, partialContents, contentsName);
      await mkdir(dirname(out), { recursive: true });
      const counts = await writeToFile(partial, (write) => writeExportText(store.db, write, { placeContent: (file) => folder.place(file) }));
      const contents = await folder.writePlaced();
      if (contents > 0) await replaceFolder(contentsDir, partialContents);
      await rename(partial, out);
      process.stderr.write(`wrote ${out} (${counts.users} users, ${counts.files} files, ${contents} stored contents in ${contentsName}/)\n`);
      return 0;
    } catch (error) {
      await rm(partial, { force: true });
      await rm(partialContents, { recursive: true, force: true });
      if (error instanceof ContentExportError) throw new CliError(`export stopped, ${out} not written: ${error.message}`);
      throw error;
    } finally {
      await storage.close();
    }
  } finally {
    await store.close();
  }
}

/** Puts the folder `written` where `target` is (a folder cannot be renamed over one that holds files). */
async function replaceFolder(target: string, written: string): Promise<void> {
  const earlier = `${target}.earlier-${process.pid}`;
  const hadEarlier = await rename(target, earlier).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
  await rename(written, target);
  if (hadEarlier) await rm(earlier, { recursive: true, force: true });
}

/** Runs `work` with a writer into a new file at `path` (it waits while the file's stream is full), then closes the file. */
async function writeToFile<T>(path: string, work: (write: (text: string) => Promise<void>) => Promise<T>): Promise<T> {
  const stream = createWriteStream(path);
  let failure: Error | undefined;
  stream.on('error', (error) => (failure = error));
  try {
    const result = await work(async (text) => {
      if (failure) throw failure;
      // `once` rejects if the stream fails while it waits (a full disk).
      if (!stream.write(text)) await once(stream, 'drain');
    });
    stream.end();
    await finished(stream);
    return result;
  } finally {
    stream.destroy();
  }
}

/**
 * Copies a file to stdout, waiting while the pipe is full. false: the reader went away (EPIPE, as with
 * `| head`), said in one line; any other failure of stdout is thrown.
 */
async function copyToStdout(path: string): Promise<boolean> {
  let failure: (Error & { code?: string }) | undefined;
  // Left on: a broken pipe may still report writes it had queued after this returns.
  process.stdout.on('error', (error) => (failure ??= error));
  try {
    for await (const chunk of createReadStream(path)) {
      if (failure) break;
      // `once` rejects if stdout fails while it waits.
      if (!process.stdout.write(chunk as Buffer)) await once(process.stdout, 'drain');
    }
    await new Promise<void>((resolveFlushed) => process.stdout.write('', () => resolveFlushed()));
  } catch (error) {
    failure ??= error as Error;
  }
  if (failure === undefined) return true;
  if (failure.code !== 'EPIPE') throw failure;
  process.stderr.write('export: the reader of stdout closed it before the end of the snapshot\n');
  return false;
}
