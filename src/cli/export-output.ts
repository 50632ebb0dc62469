import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { lstat, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { CliError } from './cli-error.js';

/** Runs `work` with a writer into a new file at `path` (it waits while the file's stream is full), then closes the file. */
export async function writeToFile<T>(path: string, work: (write: (text: string) => Promise<void>) => Promise<T>): Promise<T> {
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
    // Its file is opened asynchronously: a failure before that must not leave it to be created after the caller removed it.
    if (!stream.closed) await new Promise<void>((closed) => stream.once('close', () => closed()));
  }
}

/** A full disk or quota, said as what to do about it. */
export function asSpoolProblem(error: unknown, folder: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return error;
  return new CliError(`export: no room in ${folder} for the temporary copy of the snapshot (${(error as Error).message}); set TMPDIR to a larger disk, or use --out FILE`);
}

/**
 * Copies an open file to stdout, waiting while the pipe is full. false: the reader went away (EPIPE, as
 * with `| head`, or ECONNRESET from a socket), said in one line; any other failure of stdout is thrown.
 */
export async function copyToStdout(file: FileHandle): Promise<boolean> {
  let failure: (Error & { code?: string }) | undefined;
  // Left on: a broken pipe may still report writes it had queued after this returns.
  process.stdout.on('error', (error) => (failure ??= error));
  try {
    for await (const chunk of file.createReadStream({ autoClose: false, start: 0 })) {
      if (failure) break;
      // `once` rejects if stdout fails while it waits.
      if (!process.stdout.write(chunk as Buffer)) await once(process.stdout, 'drain');
    }
    await new Promise<void>((resolveFlushed) => process.stdout.write('', () => resolveFlushed()));
  } catch (error) {
    failure ??= error as Error;
  }
  if (failure === undefined) return true;
  if (failure.code !== 'EPIPE' && failure.code !== 'ECONNRESET') throw failure;
  process.stderr.write('export: the reader of stdout closed it before the end of the snapshot\n');
  return false;
}

/** Refuses a path that exists and is not a folder (an export's FILE-contents/ would replace it). */
export async function refuseNonFolder(path: string): Promise<void> {
  const found = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (found && !found.isDirectory()) throw new CliError(`export: ${path} exists and is not a folder; the stored contents go there: move it away first`);
}

/**
 * Puts a written export in place of an earlier one: its contents folder (none: the earlier folder goes
 * too), then its snapshot file, back to back; the earlier folder is removed only once both are in place,
 * and put back if either rename fails. What a crash can leave is a moment between two renames.
 */
export async function putExportInPlace(paths: { file: string; writtenFile: string; folder: string; writtenFolder: string | undefined }): Promise<void> {
  const earlier = `${paths.folder}.earlier-${process.pid}`;
  const hadEarlier = await rename(paths.folder, earlier).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
  try {
    if (paths.writtenFolder !== undefined) await rename(paths.writtenFolder, paths.folder);
    try {
      await rename(paths.writtenFile, paths.file);
    } catch (error) {
      if (paths.writtenFolder !== undefined) await rename(paths.folder, paths.writtenFolder);
      throw error;
    }
  } catch (error) {
    if (hadEarlier) await rename(earlier, paths.folder);
    throw error;
  }
  if (hadEarlier) await rm(earlier, { recursive: true, force: true });
}

/** What an export in progress adds to the name of a part it writes beside `path`, before its process id. */
const PARTIAL = '.partial-';

/** The name this export gives a part it writes beside `path` (`path.partial-PID`). */
export const partialName = (path: string) => `${path}${PARTIAL}${process.pid}`;

/**
 * Removes the parts that exports of `paths` which were stopped for good (killed, the machine down) left
 * beside them: `path.partial-PID` of every PID no process has any more. An export still running (its
 * process there) keeps its parts. Returns the names removed.
 */
export async function removeStoppedExportParts(paths: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const path of paths) {
    const folder = dirname(path);
    const names = await readdir(folder).catch(() => [] as string[]);
    const prefix = `${basename(path)}${PARTIAL}`;
    for (const name of names) {
      const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : Number.NaN;
      if (!Number.isSafeInteger(pid) || pid <= 0 || processIsThere(pid)) continue;
      await rm(join(folder, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}

/** Whether a process with this id exists (one of another user's included). */
function processIsThere(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
