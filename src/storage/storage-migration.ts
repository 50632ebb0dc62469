import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describeLocation } from '../config/storage.js';
import type { FileObject } from './file-object-rows.js';
import type { FileStorage } from './file-storage.js';
import { MeasuredStream } from './measured-stream.js';
import type { ObjectBackend } from './object-backend.js';

/** Rows read per page while walking every stored file. */
const PAGE = 200;

/** A stored file that did not come through: its id and what went wrong, for the operator. */
export interface ObjectProblem {
  fileId: string;
  problem: string;
}

export interface MigrationReport {
  /** Files whose bytes were copied and read back with the recorded hash (or, dry run: would be copied). */
  copied: number;
  /** Their bytes. */
  bytes: number;
  /** Files whose bytes were already in the target (nothing to copy). */
  inPlace: number;
  /** Files whose row now points to the target (target = database, or target = FILE_STORAGE). */
  handedOver: number;
  problems: ObjectProblem[];
}

export interface MigrationOptions {
  /** Where bytes outside the database are read from; defaults to the configured back end. */
  from?: ObjectBackend;
  /** Count what would be copied; copy nothing. */
  dryRun?: boolean;
  /** Only these files (those a snapshot import just stored); default: every stored file. */
  fileIds?: readonly string[];
  /** Told of each stored file once it is handled (copied, found in place, or a problem). */
  onObject?: (object: FileObject) => void;
}

/** Every stored file's row, page by page, in file id order; or the rows of `fileIds` that exist. */
export async function* everyObject(storage: FileStorage, fileIds?: readonly string[]): AsyncGenerator<FileObject> {
  if (fileIds) {
    for (const fileId of fileIds) {
      const object = await storage.rows.get(fileId);
      if (object) yield object;
    }
    return;
  }
  let after: string | undefined;
  for (;;) {
    const page = await storage.rows.list({ limit: PAGE, ...(after === undefined ? {} : { after }) });
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.fileId;
  }
}

/** Size and SHA-256 of a stream, read to its end. */
export async function measure(stream: Readable): Promise<{ size: number; sha256: string }> {
  const measured = new MeasuredStream();
  await pipeline(stream, measured, async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) void chunk;
  });
  return measured.measured;
}

/** What is wrong with the bytes `backend` holds for the row, or undefined when they match its size and hash. */
async function checkCopy(backend: ObjectBackend, object: FileObject): Promise<string | undefined> {
  const opened = await backend.open(object.fileId);
  if (!opened) return `no bytes in ${describeLocation(backend.location)}`;
  const seen = await measure(await opened.stream());
  if (seen.sha256 === object.sha256 && seen.size === object.size) return undefined;
  return `${describeLocation(backend.location)} holds ${seen.size} bytes with SHA-256 ${seen.sha256}; recorded: ${object.size} bytes, ${object.sha256}`;
}

/**
 * `storage verify`: reads every stored file's bytes from where its row says they are and checks them
 * against the recorded size and SHA-256.
 */
export async function verifyObjects(storage: FileStorage): Promise<{ checked: number; bytes: number; problems: ObjectProblem[] }> {
  const problems: ObjectProblem[] = [];
  let checked = 0;
  let bytes = 0;
  for await (const object of everyObject(storage)) {
    checked += 1;
    bytes += object.size;
    const holder = storage.holderOf(object);
    const problem = holder ? await checkCopy(holder, object) : 'the row says its bytes are outside the database, but FILE_STORAGE=database';
    if (problem) problems.push({ fileId: object.fileId, problem });
  }
  return { checked, bytes, problems };
}

/**
 * `storage migrate`: copies the bytes of every stored file from where they are (its database row, or
 * `from`, by default the configured back end) to `target`, reads each copy back from the target and
 * checks it against the recorded SHA-256. Rows then point to the target where collab-host can already
 * read it there: always when the target is the database (a row that holds its bytes is served from it
 * whatever FILE_STORAGE says), and for bytes held in database rows when the target is the configured back
 * end (their copy in the row is dropped). Otherwise the rows stay as they are until FILE_STORAGE names the
 * target. A file written again meanwhile is reported, never overwritten with older bytes; sources are
 * left as they are.
 */
export async function migrateObjects(storage: FileStorage, target: ObjectBackend, options: MigrationOptions = {}): Promise<MigrationReport> {
  const report: MigrationReport = { copied: 0, bytes: 0, inPlace: 0, handedOver: 0, problems: [] };
  const targetName = describeLocation(target.location);
  const targetIsConfigured = targetName === describeLocation(storage.backend.location);
  const problem = (fileId: string, text: string) => report.problems.push({ fileId, problem: text });

  for await (const object of everyObject(storage, options.fileIds)) {
    try {
      await migrateObject(object);
    } finally {
      options.onObject?.(object);
    }
  }
  return report;

  async function migrateObject(object: FileObject): Promise<void> {
    // Rows do not say which outside back end holds their bytes: `from` (if not the database), else FILE_STORAGE's.
    const from = options.from?.location.kind === 'database' ? undefined : options.from;
    const source = object.inDatabase ? storage.holderOf(object) : (from ?? storage.holderOf(object));
    if (!source) {
      problem(object.fileId, 'its bytes are outside the database but FILE_STORAGE=database: name where they are with --from');
      return;
    }
    const handOver = target.location.kind === 'database' ? !object.inDatabase : targetIsConfigured && object.inDatabase;
    if (describeLocation(source.location) === targetName) {
      report.inPlace += 1;
      return;
    }
    const opened = await source.open(object.fileId);
    if (!opened) {
      // Uploaded to the target after FILE_STORAGE was switched to it, and so never in `from`.
      if (!object.inDatabase && targetIsConfigured && (await checkCopy(target, object)) === undefined) report.inPlace += 1;
      else problem(object.fileId, `no bytes in ${describeLocation(source.location)}`);
      return;
    }
    if (options.dryRun) {
      await opened.close();
      report.copied += 1;
      report.bytes += object.size;
      if (handOver) report.handedOver += 1;
      return;
    }
    const written = await target.put(object.fileId, await opened.stream(), { contentType: object.contentType, maxBytes: Number.POSITIVE_INFINITY });
    if (written.sha256 !== object.sha256) {
      await target.delete(object.fileId);
      problem(object.fileId, `the bytes read from ${describeLocation(source.location)} have SHA-256 ${written.sha256}, not the recorded ${object.sha256}; not copied`);
      return;
    }
    // Into the database, the row is where the copy lands: hand over first, then read it back.
    if (written.inline !== null && !(await storage.rows.moveBytes(object.fileId, object.sha256, written.inline))) {
      problem(object.fileId, 'was written again while being copied; run the migration again');
      return;
    }
    const mismatch = await checkCopy(target, object);
    if (mismatch) {
      problem(object.fileId, `copied, but read back: ${mismatch}`);
      return;
    }
    report.copied += 1;
    report.bytes += object.size;
    if (!handOver) return;
    if (written.inline === null && !(await storage.rows.moveBytes(object.fileId, object.sha256, null))) {
      problem(object.fileId, 'was written again while being copied; run the migration again');
      return;
    }
    report.handedOver += 1;
  }
}

/**
 * After a snapshot import, which writes the bytes of each `contentFile` into its row in the import's one
 * transaction: hands them over to the configured back end (FILE_STORAGE) as `storage migrate` would,
 * each copy read back and checked against its SHA-256. Writing to the back end before the commit could
 * replace the bytes of a file whose import then rolls back.
 */
export async function storeImportedContents(storage: FileStorage, fileIds: readonly string[]): Promise<MigrationReport> {
  if (storage.backend.location.kind === 'database' || fileIds.length === 0) return { copied: 0, bytes: 0, inPlace: 0, handedOver: 0, problems: [] };
  return migrateObjects(storage, storage.backend, { fileIds });
}
