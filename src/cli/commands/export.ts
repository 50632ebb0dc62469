import { mkdir, mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { loadConfig } from '../../config/config.js';
import { countStoredContents } from '../../snapshot/export.js';
import { writeExportText } from '../../snapshot/export-text.js';
import { ContentExportError, ContentFolder } from '../../storage/content-folder.js';
import { createFileStorage } from '../../storage/open-backend.js';
import { openDatabase } from '../../store/connection/database.js';
import { SqlFileObjects } from '../../store/files/file-objects.js';
import { CliError } from '../cli-error.js';
import { asSpoolProblem, copyToStdout, partialName, putExportInPlace, refuseNonFolder, removeStoppedExportParts, writeToFile } from '../export-output.js';
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
      let text: FileHandle;
      let stored: number;
      try {
        const path = join(spool, 'snapshot.json');
        await writeToFile(path, (write) => writeExportText(store.db, write)).catch((error: unknown) => {
          throw asSpoolProblem(error, tmpdir());
        });
        stored = await countStoredContents(store.db);
        text = await open(path, 'r');
      } finally {
        // Removed before the copy (the open file keeps its bytes): a Ctrl-C during it leaves nothing behind.
        await rm(spool, { recursive: true, force: true });
      }
      try {
        if (!(await copyToStdout(text))) return 1;
      } finally {
        await text.close();
      }
      if (stored > 0) {
        process.stderr.write(`note: ${stored} stored file content(s) not included (stdout carries JSON only); use --out FILE to export them\n`);
      }
      return 0;
    }

    const out = resolve(values.out);
    const contentsName = `${basename(out).replace(/\.json$/i, '')}-contents`;
    const contentsDir = join(dirname(out), contentsName);
    await refuseNonFolder(contentsDir);
    // The snapshot and its bytes are written beside FILE and FILE-contents/ first, and take their names
    // once all is written: an export that fails leaves an earlier export at FILE whole.
    const partial = partialName(out);
    const partialContents = partialName(contentsDir);
    for (const name of await removeStoppedExportParts([out, contentsDir])) process.stderr.write(`removed ${name}, left by an export that was stopped\n`);
    const storage = createFileStorage(config, new SqlFileObjects(store.db));
    try {
      const folder = new ContentFolder(storage, partialContents, contentsName);
      await mkdir(dirname(out), { recursive: true });
      const counts = await writeToFile(partial, (write) => writeExportText(store.db, write, { placeContent: (file) => folder.place(file) }));
      const contents = await folder.writePlaced();
      await putExportInPlace({ file: out, writtenFile: partial, folder: contentsDir, writtenFolder: contents > 0 ? partialContents : undefined });
      process.stderr.write(`wrote ${out} (${counts.users} users, ${counts.files} files, ${contents} stored contents${contents > 0 ? ` in ${contentsName}/` : ''})\n`);
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
