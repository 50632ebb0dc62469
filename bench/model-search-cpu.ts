/**
 * CPU per search of each kind from the read model alone (no HTTP, no store: activity empty), in one
 * process: a generated company in the bench's proportions, the bench's keywords, the empty one and
 * varied pieces of real names (1 to 3 characters, as the bench's varied run types), 20 viewers each:
 * the average per group and its three dearest keywords. Also how long building the search indexes takes.
 *
 *   [ROUNDS=6] [EACH=1] npx tsx bench/model-search-cpu.ts [users]   (default 20,000; ROUNDS: the least of
 *   rounds 2..N per keyword, steadier on a loaded machine; EACH: every bench keyword's figure)
 */
import { DirectoryModel } from '../src/directory/read-model/directory-model.js';
import { ModelSearch } from '../src/directory/read-model/model-search.js';
import { roleRank } from '../src/directory/permissions.js';
import { normaliseKeyword } from '../src/directory/search-keyword.js';
import { nameKeys } from '../src/directory/search-keys.js';
import type { Role } from '../src/directory/types.js';
import { generateCompany } from './generate.js';
import { fileRecordOf, userRecordOf } from './model-records.js';
import { KEYWORDS } from './scenarios.js';
const users = Number(process.argv[2] ?? 20_000);
const { snapshot } = generateCompany({ users, departments: users / 100, files: users * 2, grantsPerFile: 5 });
const model = new DirectoryModel();
model.setTeam('t1', { id: 't1', name: 'x' });
for (const d of snapshot.departments) model.setDepartment(d.id, { id: d.id, name: d.name, teamId: d.teamId, parentId: d.parentId }, nameKeys(d.name));
for (const u of snapshot.users) {
  model.setUser(u.id, userRecordOf(u), nameKeys(u.name));
  model.setMemberships(u.id, u.departmentIds);
}
for (const f of snapshot.files) model.setFile(f.id, fileRecordOf(f), nameKeys(f.name));
for (const f of snapshot.files)
  model.setGrants(
    f.id,
    f.sharing.map((s) => ({ principal: s.principal, rank: roleRank(s.role as Role) })),
  );
const parts: Array<[string, () => void]> = [
  ['people', () => model.search.peopleOf('t1').prepare()],
  ['departments', () => model.search.departmentsOf('t1').prepare()],
  ['file names', () => model.search.fileNames.prepare()],
  ['time orders', () => (model.search.newestUpdated.prepare(), model.search.newestCreated.prepare())],
];
for (const [label, build] of parts) {
  const t = performance.now();
  build();
  console.log(`building the index of ${label}: ${(performance.now() - t).toFixed(0)} ms`);
}
const none = async () => new Map<string, string>();
const search = new ModelSearch({ model, generation: 0, current: async () => {} }, { contactsOf: none, touchedFilesOf: none, activityOnFile: none });
// The bench's varied keywords (bench/scenarios.ts namePiece): 1 to 3 characters of a word of a real name.
let seed = 7;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const piece = (name: string) => {
  const words = name.split(' ');
  const word = words.length > 1 && next() < 0.3 ? words[1]! : words[0]!;
  return [...word].slice(0, 1 + Math.floor(next() * 3)).join('');
};
const varied = [...new Set(snapshot.users.slice(0, 5000).map((u) => piece(u.name)))].slice(0, 60);
const groups: Array<[string, string[]]> = process.env.PREPARE_ONLY
  ? []
  : [
      ['bench keywords', [...KEYWORDS]],
      ['empty', ['']],
      ['varied 1-3 chars', varied],
    ];
const page = { offset: 0, limit: 6 };
const VIEWERS = 20;
// Rounds after the first (a warm-up); each keyword's figure is its least CPU over them, which a loaded
// machine moves less than one round's.
const ROUNDS = Math.max(2, Number(process.env.ROUNDS ?? 2));
for (const kind of ['files', 'team', 'dept', 'recent', 'collab'] as const) {
  for (const [label, kws] of groups) {
    const least = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const text of kws) {
        const start = process.cpuUsage();
        for (let i = 0; i < VIEWERS; i++) {
          const viewerId = `u${1 + ((i * 7919) % users)}`;
          const keyword = normaliseKeyword(text);
          const q = { viewerId, keyword, page };
          if (kind === 'files') await search.searchReadableFiles(q);
          else if (kind === 'team') await search.searchTeamMembers({ ...q, teamId: 't1' });
          else if (kind === 'dept') await search.searchDepartments({ ...q, teamId: 't1' });
          else if (kind === 'recent') await search.searchRecentContacts({ ...q, fileId: `f${1 + i}` });
          else await search.searchCollaborators({ ...q, fileId: `f${1 + i}` });
        }
        const used = process.cpuUsage(start);
        if (round > 0) least.set(text, Math.min(least.get(text) ?? Infinity, (used.user + used.system) / VIEWERS));
      }
    }
    const perKeyword = [...least].map(([text, us]) => [us, text] as const);
    const average = perKeyword.reduce((total, [us]) => total + us, 0) / perKeyword.length;
    const worst = [...perKeyword]
      .sort((x, y) => y[0] - x[0])
      .slice(0, 3)
      .map(([us, k]) => `${JSON.stringify(k)} ${us.toFixed(0)}`)
      .join(', ');
    console.log(`${kind.padEnd(6)} ${label.padEnd(16)} ${average.toFixed(0).padStart(6)} us CPU avg; worst keywords (us CPU each): ${worst}`);
    if (process.env.EACH && label === 'bench keywords') console.log(`       each: ${perKeyword.map(([us, k]) => `${k} ${us.toFixed(0)}`).join(', ')}`);
  }
}
