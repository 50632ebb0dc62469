/**
 * What a search costs right after a write of many names at once (an import, a directory sync that renames
 * an eighth of the company or more), when the read model builds its name index again: the longest the
 * event loop was held (no request answered meanwhile) and how long until the new index is in place, while
 * a search of the files and one of the people runs on every turn of the event loop. In a model of the
 * bench's proportions, no store and no HTTP.
 *
 *   npx tsx bench/search-after-mass-writes.ts [--users N] [--files N] [--renamed SHARE]
 *   (defaults: 100,000 people, 200,000 files, a sixth of each renamed)
 */
import { parseArgs } from 'node:util';
import { DirectoryModel } from '../src/directory/read-model/directory-model.js';
import { normaliseKeyword } from '../src/directory/search-keyword.js';
import { nameKeys } from '../src/directory/search-keys.js';
import { generateCompany } from './generate.js';
import { fileRecordOf, userRecordOf } from './model-records.js';

const { values } = parseArgs({ options: { users: { type: 'string' }, files: { type: 'string' }, renamed: { type: 'string' } } });
const users = Number(values.users ?? 100_000);
const files = Number(values.files ?? 200_000);
const renamed = Number(values.renamed ?? 1 / 6);
const { snapshot } = generateCompany({ users, departments: Math.max(10, Math.round(users / 100)), files, grantsPerFile: 0 });

const model = new DirectoryModel();
const teamId = snapshot.teams[0]!.id;
model.setTeam(teamId, { id: teamId, name: snapshot.teams[0]!.name });
for (const d of snapshot.departments) model.setDepartment(d.id, { id: d.id, name: d.name, teamId: d.teamId, parentId: d.parentId });
for (const u of snapshot.users) model.setUser(u.id, userRecordOf(u), nameKeys(u.name));
for (const f of snapshot.files) model.setFile(f.id, fileRecordOf(f), nameKeys(f.name));
let start = performance.now();
model.search.prepare([teamId]);
const report: Record<string, string> = { 'indexes built at load': `${(performance.now() - start).toFixed(0)} ms` };
const fileNames = model.search.fileNames;
const people = model.search.peopleOf(teamId);
const before = { files: fileNames.current().index, people: people.current().index };

// The mass write: new names for a share of the people and of the files, as a sync writes them.
start = performance.now();
for (const u of snapshot.users.slice(0, Math.round(users * renamed))) model.setUser(u.id, userRecordOf(u, `${u.name} 二`), nameKeys(`${u.name} 二`));
for (const f of snapshot.files.slice(0, Math.round(files * renamed))) model.setFile(f.id, fileRecordOf(f, `${f.name} v2`), nameKeys(`${f.name} v2`));
report[`the writes (${Math.round(users * renamed)} people, ${Math.round(files * renamed)} files)`] = `${(performance.now() - start).toFixed(0)} ms`;

// Then a search of the files and one of the people on every turn of the event loop, until both indexes
// were built again (at once by the first search, or in slices). The event loop is held by a search, or
// by what runs between two turns (a slice of a build): the longest of these is what a request arriving
// then waited at most.
const keywords = ['报告', 'plan', 'zh', '李', 'wang', 'q3'].map(normaliseKeyword);
const searches: number[] = [];
const between: number[] = [];
const began = performance.now();
let rebuiltAt: { files?: number; people?: number } = {};
await new Promise<void>((resolve) => {
  let last = performance.now();
  let turn = 0;
  const next = () => {
    const now = performance.now();
    between.push(now - last);
    const keyword = keywords[turn++ % keywords.length]!;
    fileNames.candidates(keyword, 2_000);
    people.candidates(keyword, 2_000);
    last = performance.now();
    searches.push(last - now);
    if (rebuiltAt.files === undefined && fileNames.current().index !== before.files) rebuiltAt = { ...rebuiltAt, files: last - began };
    if (rebuiltAt.people === undefined && people.current().index !== before.people) rebuiltAt = { ...rebuiltAt, people: last - began };
    if ((rebuiltAt.files !== undefined && rebuiltAt.people !== undefined) || last - began > 60_000) resolve();
    else setImmediate(next);
  };
  setImmediate(next);
});
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const percentile = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))]!;
report['turns until both were built again'] = `${searches.length}`;
report['the files index in place after'] = rebuiltAt.files === undefined ? 'not within 60 s' : ms(rebuiltAt.files);
report['the people index in place after'] = rebuiltAt.people === undefined ? 'not within 60 s' : ms(rebuiltAt.people);
report['longest the event loop was held (a request waited at most)'] = ms(Math.max(...searches, ...between));
report['a search (files and people): p50 / p99 / longest'] = `${ms(percentile(searches, 0.5))} / ${ms(percentile(searches, 0.99))} / ${ms(Math.max(...searches))}`;
report['between two searches (slices): p50 / longest'] = `${ms(percentile(between, 0.5))} / ${ms(Math.max(...between))}`;
console.log(JSON.stringify({ users, files, renamed, ...report }, null, 1));
