/**
 * What the files newest first cost while people edit files (each edit moves a file's `updatedAt`, a
 * `FileContent` event): the walk that `GET /files` and the empty-keyword file search make (the first
 * page, 20 files) after every edit, in a model of the bench's files. CPU of each walk, in microseconds.
 *
 *   npx tsx bench/newest-after-edits.ts [--files N] [--edits N]   (defaults: 200,000 files, 20,000 edits)
 */
import { parseArgs } from 'node:util';
import { DirectoryModel } from '../src/directory/read-model/directory-model.js';
import { nameKeys } from '../src/directory/search-keys.js';
import { generateCompany } from './generate.js';
import { fileRecordOf } from './model-records.js';

const { values } = parseArgs({ options: { files: { type: 'string' }, edits: { type: 'string' } } });
const files = Number(values.files ?? 200_000);
const edits = Number(values.edits ?? 20_000);
const { snapshot } = generateCompany({ users: 1_000, departments: 10, files, grantsPerFile: 0 });
const model = new DirectoryModel();
for (const f of snapshot.files) model.setFile(f.id, fileRecordOf(f), nameKeys(f.name));
model.search.newestUpdated.prepare();

const cpuMicros = (run: () => void): number => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
};
const walk = () =>
  model.search.newestUpdated.walk(() => {
    seen += 1;
    return seen % 20 !== 0;
  });
let seen = 0;
// Edits of files at random, each at a later second than the last, as they come in.
let state = 9;
const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
const walks: number[] = [];
let writes = 0;
for (let edit = 0; edit < edits; edit += 1) {
  const file = snapshot.files[Math.floor(random() * snapshot.files.length)]!;
  const updatedAt = new Date(Date.UTC(2027, 0, 1) + edit * 1000).toISOString().replace('.000', '');
  writes += cpuMicros(() => model.setFile(file.id, { ...fileRecordOf(file), updatedAt }, nameKeys(file.name)));
  walks.push(cpuMicros(walk));
}
walks.sort((a, b) => a - b);
const at = (share: number) => walks[Math.min(walks.length - 1, Math.floor(walks.length * share))]!;
console.log(
  JSON.stringify(
    {
      files,
      edits,
      'a walk of the first page after each edit, CPU µs: p50 / p99 / max': `${at(0.5)} / ${at(0.99)} / ${walks.at(-1)}`,
      'all walks, CPU ms': Math.round(walks.reduce((sum, value) => sum + value, 0) / 1000),
      'the edits themselves, CPU ms': Math.round(writes / 1000),
    },
    null,
    1,
  ),
);
