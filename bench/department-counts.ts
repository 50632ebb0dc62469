/**
 * What a department's member count (`allMemberCount`: department info, children, department search) costs
 * the read model on a company in the bench's proportions: every department's count asked once from
 * cold, then again after one user's write (a SCIM or LDAP update, a deactivation), which drops or changes
 * what the model kept. CPU time of the main thread.
 *
 *   npx tsx bench/department-counts.ts [--users N]   (default 100,000: 1,000 departments)
 */
import { parseArgs } from 'node:util';
import { DirectoryModel } from '../src/directory/read-model/directory-model.js';
import { generateCompany } from './generate.js';

const { values } = parseArgs({ options: { users: { type: 'string' } } });
const users = Number(values.users ?? 100_000);
const { snapshot } = generateCompany({ users, departments: Math.max(10, Math.round(users / 100)), files: 0, grantsPerFile: 0 });
const model = new DirectoryModel();
model.setTeam('t1', { id: 't1', name: snapshot.teams[0]!.name });
for (const d of snapshot.departments) model.setDepartment(d.id, { id: d.id, name: d.name, teamId: d.teamId, parentId: d.parentId });
for (const u of snapshot.users) {
  model.setUser(u.id, { id: u.id, name: u.name, email: u.email, avatar: u.avatar, teamId: u.teamId, watermark: null, active: true });
  model.setMemberships(u.id, u.departmentIds);
}
const departments = snapshot.departments.map((d) => d.id);
// The first-level departments: the largest subtrees, asked when the tree's first level is listed.
const firstLevel = snapshot.departments.filter((d) => d.parentId === null).map((d) => d.id);

const cpuMs = (run: () => void): number => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

const report: Record<string, string> = {};
report['every department once, from cold'] = `${cpuMs(() => departments.forEach((id) => model.subtreeMemberCount(id))).toFixed(1)} ms`;
report['every department again'] = `${cpuMs(() => departments.forEach((id) => model.subtreeMemberCount(id))).toFixed(2)} ms`;
const writes = 100;
let afterWrites = 0;
for (let index = 0; index < writes; index += 1) {
  const user = snapshot.users[index]!;
  model.setUser(user.id, { id: user.id, name: user.name, email: user.email, avatar: user.avatar, teamId: user.teamId, watermark: null, active: index % 2 === 0 ? false : true });
  afterWrites += cpuMs(() => firstLevel.forEach((id) => model.subtreeMemberCount(id)));
}
report[`the ${firstLevel.length} first-level departments after a user's write (mean of ${writes} writes)`] = `${(afterWrites / writes).toFixed(2)} ms`;
console.log(JSON.stringify({ users, departments: departments.length, ...report }, null, 1));
