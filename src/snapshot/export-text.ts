import type { Kysely } from 'kysely';
import type { SectionName } from '../directory-changes/records.js';
import { SECTIONS } from '../directory-changes/records.js';
import type { Database } from '../store/schema/schema.js';
import { readExport, type ExportOptions } from './export.js';

/** Text handed to `write` at a time, about (a record more at most). */
const CHUNK_CHARACTERS = 64 * 1024;

/**
 * The directory's snapshot as JSON text, exactly what `JSON.stringify(exportSnapshot(db), null, 2)`
 * and a newline would give, handed to `write` a piece at a time as the records are read: the export of a
 * company never holds its whole snapshot, nor its text (one string of it would pass V8's length limit
 * of 512 MiB at a few hundred thousand users). `write` may wait (a pipe's back-pressure). Answers how
 * many records of each section it wrote.
 */
export async function writeExportText(db: Kysely<Database>, write: (text: string) => Promise<void>, options: ExportOptions = {}): Promise<Record<SectionName, number>> {
  const counts = Object.fromEntries(SECTIONS.map((section) => [section, 0])) as Record<SectionName, number>;
  let pending = '{';
  let open: SectionName | undefined;
  const flush = async (force: boolean) => {
    if (pending.length === 0 || (!force && pending.length < CHUNK_CHARACTERS)) return;
    const text = pending;
    pending = '';
    await write(text);
  };
  // The sections before `section` that have no record yet print as JSON.stringify prints them.
  const closeUpTo = (section: SectionName | undefined) => {
    const from = open === undefined ? 0 : SECTIONS.indexOf(open) + 1;
    if (open !== undefined) pending += '\n  ]';
    const to = section === undefined ? SECTIONS.length : SECTIONS.indexOf(section);
    for (let index = from; index < to; index += 1) pending += `${index === 0 ? '' : ','}\n  "${SECTIONS[index]}": []`;
  };
  await readExport(
    db,
    async (section, record) => {
      if (section !== open) {
        closeUpTo(section);
        pending += `${section === SECTIONS[0] ? '' : ','}\n  "${section}": [\n    `;
        open = section;
      } else pending += ',\n    ';
      // A JSON text has no raw line break inside a string: every one is indentation.
      pending += JSON.stringify(record, null, 2).replaceAll('\n', '\n    ');
      counts[section] += 1;
      await flush(false);
    },
    options,
  );
  closeUpTo(undefined);
  pending += '\n}\n';
  await flush(true);
  return counts;
}
