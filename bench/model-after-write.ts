/**
 * What the read model's derived facts about people cost on a company in the bench's proportions, from
 * cold and after one user's write (a SCIM or LDAP update, a deactivation), which changes what the model
 * kept: department member counts (`allMemberCount`: department info, children, department search) and
 * the team's people in name order (the empty @-search's list, team members). CPU time of the main thread.
 *
 *   npx tsx bench/model-after-write.ts [--users N]   (default 100,000: 1,000 departments, one team)
 */
import { parseArgs } from 'node:util';
import { DirectoryModel } from '../src/directory/read-model/directory-model.js';
import { generateCompany } from './generate.js';
import { userRecordOf } from './model-records.js';

const { values } = parseArgs({ options: { users: { type: 'string' } } });
const users = Number(values.users ?? 100_000);
const { snapshot } = generateCompany({ users, departments: Math.max(10, Math.round(users / 100)), files: 0, grantsPerFile: 0 });
const model = new DirectoryModel();
model.setTeam('t1', { id: 't1', name: snapshot.teams[0]!.name });
for (const d of snapshot.departments) model.setDepartment(d.id, { id: d.id, name: d.name, teamId: d.teamId, parentId: d.parentId });
for (const u of snapshot.users) {
  model.setUser(u.id, userRecordOf(u));
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
const teamId = snapshot.users[0]!.teamId!;
report["the team's people in order, from cold"] = `${cpuMs(() => model.activeTeamUsers(teamId)).toFixed(1)} ms`;
const writes = 100;
let counts = 0;
let order = 0;
for (let index = 0; index < writes; index += 1) {
  const user = snapshot.users[index]!;
  // Every other write a deactivation, the others a new name: both move the user in what is kept.
  const active = index % 2 === 1;
  model.setUser(user.id, { ...userRecordOf(user, active ? `${user.name} ${index}` : user.name), teamId, active });
  counts += cpuMs(() => firstLevel.forEach((id) => model.subtreeMemberCount(id)));
  order += cpuMs(() => model.activeTeamUsers(teamId));
}
report[`the ${firstLevel.length} first-level departments' counts after a user's write (mean of ${writes})`] = `${(counts / writes).toFixed(2)} ms`;
report[`the team's people in order after a user's write (mean of ${writes})`] = `${(order / writes).toFixed(2)} ms`;
console.log(JSON.stringify({ users, departments: departments.length, ...report }, null, 1));
