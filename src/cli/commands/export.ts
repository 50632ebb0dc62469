import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { loadConfig } from '../../config.js';
import { countStoredContents, exportSnapshot } from '../../snapshot/export.js';
import { openDatabase } from '../../store/database.js';
import { parseCommandArgs } from '../command-args.js';

const USAGE = `usage: collab-host export [--out FILE]

Prints the directory of DATABASE_URL as a snapshot (JSON) on stdout.
  --out FILE  write FILE instead, and the stored bytes of third-party files into FILE-contents/ beside it`;

/**
 * `collab-host export`: prints the directory as a snapshot (JSON) on stdout. With `--out FILE` it writes
 * FILE instead, and the bytes of stored third-party files into `FILE-contents/` beside it (named by
 * `contentFile`), so importing FILE elsewhere brings the bytes too. stdout cannot carry bytes: there
 * `contentFile` is left out and a note on stderr says how many contents were not exported.
 */
export async function exportCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({ usage: USAGE, options: { out: { type: 'string' } } }, args);

  const config = loadConfig();
  const store = await openDatabase(config.databaseUrl);
  try {
    if (values.out === undefined) {
      const snapshot = await exportSnapshot(store.db);
      await writeStdout(`${JSON.stringify(snapshot, null, 2)}\n`);
      const stored = await countStoredContents(store.db);
      if (stored > 0) {
        process.stderr.write(`note: ${stored} stored file content(s) not included (stdout carries JSON only); use --out FILE to export them\n`);
      }
      return 0;
    }

    const out = resolve(values.out);
    const contentsName = `${basename(out).replace(/\.json$/i, '')}-contents`;
    const usedNames = new Set<string>();
    const snapshot = await exportSnapshot(store.db, {
      async writeContent(file, bytes) {
        const name = uniqueName(usedNames, safeFileName(file.id, file.ext));
        await mkdir(join(dirname(out), contentsName), { recursive: true });
        await writeFile(join(dirname(out), contentsName, name), bytes);
        return `${contentsName}/${name}`;
      },
    });
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, `${JSON.stringify(snapshot, null, 2)}\n`);
    process.stderr.write(`wrote ${out} (${snapshot.users.length} users, ${snapshot.files.length} files)\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/** A file name for a file id: safe on every file system, the extension kept. */
function safeFileName(id: string, ext: string | null): string {
  const stem = id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, 100) || 'file';
  return ext && /^[A-Za-z0-9]{1,16}$/.test(ext) && !stem.toLowerCase().endsWith(`.${ext.toLowerCase()}`) ? `${stem}.${ext}` : stem;
}

function uniqueName(used: Set<string>, name: string): string {
  let candidate = name;
  for (let n = 2; used.has(candidate.toLowerCase()); n += 1) candidate = `${n}-${name}`;
  used.add(candidate.toLowerCase());
  return candidate;
}

/** Writes to stdout and waits until it is flushed (a large snapshot into a pipe). */
function writeStdout(text: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolvePromise()));
  });
}
