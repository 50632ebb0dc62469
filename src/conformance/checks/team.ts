import type { Check, CheckContext } from '../check.js';
import { isRecord } from '../jwt.js';
import { query, seg } from '../probe.js';
import { TEAM, USER, arrayOf } from '../shapes.js';
import { collaborativeFiles, pageSizeFor } from './common.js';

/** `GET /users/current/team`, or a skip when the user has no team. */
async function currentTeam(c: CheckContext): Promise<{ id: string; memberCount: number } | undefined> {
  c.teamId();
  const body = c.ok(await c.probe.read('/users/current/team'));
  if (body === undefined || !c.shape(TEAM, body, 'team')) return undefined;
  return body as { id: string; memberCount: number };
}

/** Every member of the team, unpaged (`pagination=false`). */
async function allTeamMembers(c: CheckContext, teamId: string): Promise<Array<{ id: string }> | undefined> {
  const body = c.ok(await c.probe.read(`/teams/${seg(teamId)}/members${query({ pagination: false })}`));
  if (body === undefined || !c.shape(arrayOf(USER), body, 'team members')) return undefined;
  return body as Array<{ id: string }>;
}

/** Parts 2.5, 4.3: the team, its members, and the `teamGuid` agreement spreadsheet locking relies on. */
export const teamChecks: Check[] = [
  {
    id: 'team.current',
    group: 'team',
    section: '2.5',
    title: 'GET /users/current/team answers a Team with id, name, memberCount',
    async run(c) {
      await currentTeam(c);
    },
  },
  {
    id: 'team.team-guid',
    group: 'team',
    section: '4.3',
    title: "teamGuid is non-empty on the current user and on the team's files, and the same value (all-staff lock scope)",
    async run(c) {
      const files = collaborativeFiles(c, 5);
      const user = c.found.teamGuid;
      let fileTeams = 0;
      for (const file of files) {
        const body = c.ok(await c.probe.read(`/files/${seg(file.id)}`));
        if (!isRecord(body) || body.teamGuid === undefined) continue;
        fileTeams++;
        if (typeof body.teamGuid !== 'string' || body.teamGuid === '') {
          c.fail(`file ${file.id}: teamGuid ${JSON.stringify(body.teamGuid)} is empty`);
        } else if (user === undefined) {
          c.fail(`file ${file.id} returns teamGuid "${body.teamGuid}" but GET /users/current/info returns no teamGuid (2.2: both must be implemented)`);
        } else if (body.teamGuid !== user && (file.creatorId === c.found.userId || file.id === c.found.fileId)) {
          c.fail(`file ${file.id}: teamGuid "${body.teamGuid}" differs from the current user's "${user}": all-staff locking fails`);
        }
      }
      if (user !== undefined && fileTeams === 0 && files.length > 0) {
        c.fail(`the current user has teamGuid "${user}" but no file returns teamGuid: the all-staff lock scope never applies`);
      }
      if (user === undefined && fileTeams === 0) return c.skip('neither the user nor any file returns teamGuid (optional, but all-staff locking then never applies)');
      if (user !== undefined && c.found.teamId !== undefined && c.found.teamId !== user) {
        c.fail(`GET /users/current/team answers team "${c.found.teamId}" but the user's teamGuid is "${user}"`);
      }
    },
  },
  {
    id: 'team.members',
    group: 'team',
    section: '4.3',
    title: 'GET /teams/{teamId}/members answers every member once (memberCount of them, the current user among them)',
    async run(c) {
      const team = await currentTeam(c);
      if (!team) return;
      const members = await allTeamMembers(c, team.id);
      if (!members) return;
      const ids = members.map((m) => m.id);
      const duplicates = ids.filter((id, index) => ids.indexOf(id) !== index);
      if (duplicates.length > 0) c.fail(`members listed twice: ${[...new Set(duplicates)].join(', ')}`);
      if (new Set(ids).size !== team.memberCount) c.fail(`the team says memberCount ${team.memberCount} but lists ${new Set(ids).size} members`);
      if (!ids.includes(c.found.userId)) c.fail(`the current user ${c.found.userId} is not among the team's members`);
    },
  },
  {
    id: 'team.members-paging',
    group: 'team',
    section: '4.3',
    title: 'team members paged (pagination=true, page from 1): pages add up to the whole list, no duplicates, none missing',
    async run(c) {
      const team = await currentTeam(c);
      if (!team) return;
      const all = await allTeamMembers(c, team.id);
      if (!all) return;
      if (all.length < 2) return c.skip('the team has fewer than two members: nothing to page');
      const pageSize = pageSizeFor(all.length);
      const seen: string[] = [];
      const lastPage = Math.ceil(all.length / pageSize);
      for (let page = 1; page <= lastPage + 1; page++) {
        const body = c.ok(await c.probe.read(`/teams/${seg(team.id)}/members${query({ pagination: true, page, pageSize })}`));
        if (body === undefined || !c.shape(arrayOf(USER), body, `members page ${page}`)) return;
        const items = body as Array<{ id: string }>;
        if (items.length > pageSize) c.fail(`page ${page} holds ${items.length} members, more than pageSize ${pageSize}`);
        if (page > lastPage && items.length > 0) c.fail(`page ${page} is past the last page (${lastPage}) yet holds ${items.length} members`);
        seen.push(...items.map((m) => m.id));
      }
      reportPaging(
        c,
        'team members',
        seen,
        all.map((m) => m.id),
        pageSize,
      );
    },
  },
];

/** Compares the ids collected over pages with the full list: duplicates, and missing ones with a hint. */
export function reportPaging(c: CheckContext, what: string, seen: string[], all: string[], pageSize: number): void {
  const duplicates = [...new Set(seen.filter((id, index) => seen.indexOf(id) !== index))];
  if (duplicates.length > 0) c.fail(`${what}: listed on more than one page: ${duplicates.slice(0, 5).join(', ')}`);
  const missing = all.filter((id) => !seen.includes(id));
  if (missing.length > 0) {
    const firstPageMissing = all.slice(0, pageSize).every((id) => missing.includes(id));
    c.fail(
      `${what}: ${missing.length} of ${all.length} never appear on any page (${missing.slice(0, 5).join(', ')})` +
        (firstPageMissing ? ': the first page is missing; page 1 must be the first page' : ''),
    );
  }
}
