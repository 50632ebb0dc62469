/**
 * Bytes per user, department, file and grant in the read model (docs/scaling.md "Memory"): fills a
 * DirectoryModel in stages from a generated company (bench/generate.ts, in proportion to the bench
 * company) and reads the heap after a full GC at each stage, then builds the search indexes.
 *
 *   node --expose-gc --import tsx bench/model-memory.ts [--users N]   (default 20,000: 200 departments, 40,000 files)
 */
import { parseArgs } from 'node:util';
import { DirectoryModel } from '../src/directory/read-model/directory-model.js';
import { ModelSearch } from '../src/directory/read-model/model-search.js';
import { roleRank } from '../src/directory/permissions.js';
import { normaliseKeyword } from '../src/directory/search-keyword.js';
import { nameKeys } from '../src/directory/search-keys.js';
import type { FileType, Role } from '../src/directory/types.js';
import { generateCompany } from './generate.js';

const { values } = parseArgs({ options: { users: { type: 'string' } } });
const users = Number(values.users ?? 20_000);
const scale = { users, departments: Math.max(10, Math.round(users / 100)), files: users * 2, grantsPerFile: 5 };
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
}

const { snapshot, grantCount } = generateCompany(scale);
/** A string of its own, as each row read from the store brings (the snapshot's are counted before the measure). */
const own = <T extends string | null | undefined>(text: T): T => (typeof text === 'string' ? (Buffer.from(text).toString() as T) : text);
// Names' keys are computed before the measure (the store computed them on write); each row gets its own copy.
const keys = (name: string) => {
  const found = nameKeys(name);
  return () => ({ pinyin: own(found.pinyin), initials: own(found.initials) });
};
const userKeys = snapshot.users.map((user) => keys(user.name));
const departmentKeys = snapshot.departments.map((department) => keys(department.name));
const fileKeys = snapshot.files.map((file) => keys(file.name));
const model = new DirectoryModel();
const figures: Record<string, number> = {};
let before = heap();
const stage = (name: string, count: number) => {
  const now = heap();
  figures[name] = (now - before) / count;
  console.log(`${name}: ${count} rows, ${((now - before) / 1e6).toFixed(1)} MB, ${((now - before) / count).toFixed(0)} bytes each`);
  before = now;
};

model.setTeam('t1', { id: 't1', name: snapshot.teams[0]!.name });
snapshot.departments.forEach((d, index) =>
  model.setDepartment(own(d.id), { id: own(d.id), name: own(d.name), teamId: own(d.teamId), parentId: own(d.parentId) }, departmentKeys[index]!()),
);
stage('department', snapshot.departments.length);
snapshot.users.forEach((u, index) => {
  const id = own(u.id);
  model.setUser(id, { id, name: own(u.name), email: own(u.email), avatar: own(u.avatar), teamId: own(u.teamId), watermark: null, active: true }, userKeys[index]!());
  model.setMemberships(id, u.departmentIds.map(own));
});
stage('user (with memberships)', snapshot.users.length);
snapshot.files.forEach((f, index) => {
  const id = own(f.id);
  model.setFile(
    id,
    {
      id,
      name: own(f.name),
      type: f.type as FileType,
      creatorId: own(f.creatorId),
      teamId: own(f.teamId),
      createdAt: own(f.createdAt),
      updatedAt: own(f.updatedAt),
      views: f.views,
      ext: own(f.ext) ?? null,
      downloadUrl: own(f.downloadUrl) ?? null,
      fullUrl: own(f.fullUrl) ?? null,
      restrictions: { copy: true, export: true },
      status: 'active',
    },
    fileKeys[index]!(),
  );
});
stage('file', snapshot.files.length);
for (const f of snapshot.files)
  model.setGrants(
    f.id,
    f.sharing.map((s) => ({ principal: own(s.principal), rank: roleRank(s.role as Role) })),
  );
stage('grant (by file and by principal)', grantCount);

const none = async () => new Map<string, string>();
const search = new ModelSearch({ model, generation: 0, current: async () => {} }, { contactsOf: none, touchedFilesOf: none, activityOnFile: none });
const query = { viewerId: 'u1', keyword: normaliseKeyword('zhang'), page: { offset: 0, limit: 6 } };
await search.searchTeamMembers({ ...query, teamId: 't1' });
stage('user: search index', snapshot.users.length);
await search.searchDepartments({ ...query, teamId: 't1' });
stage('department: search index', snapshot.departments.length);
await search.searchReadableFiles(query);
model.search.fileNames.candidates(query.keyword, 1);
await search.listReadableFiles('u1', { limit: 20, orderBy: 'updated_at' });
await search.listReadableFiles('u1', { limit: 20, orderBy: 'created_at' });
stage('file: search index and time orders', snapshot.files.length);
console.log(JSON.stringify({ scale, grants: grantCount, bytesPer: figures, rssMB: Math.round(process.memoryUsage().rss / 1e6) }));
