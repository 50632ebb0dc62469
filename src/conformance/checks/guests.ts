import type { Check } from '../check.js';
import { isRecord } from '../jwt.js';
import { seg } from '../probe.js';

/**
 * A guest (a share link's token, given with --guest-token) sees one file and no directory member: their
 * current user answers, their files are never manageable, another file and the kit's user are not
 * answered, and an @-search with an empty keyword lists nobody.
 */
export const guestChecks: Check[] = [
  {
    id: 'guests.scope',
    group: 'guests',
    section: 'sharing',
    title: 'a guest token reads only its file (never manageable) and sees no directory member, team or department',
    async run(c) {
      const token = c.probe.options.guestToken;
      if (!token) return c.skip('no guest token (give --guest-token, from a share link)');
      const me = c.ok(await c.probe.withToken(token, '/users/current/info'));
      if (!isRecord(me)) return;
      if (me.id === c.found.userId) c.fail(`the guest token answers the kit's own user ${JSON.stringify(me.id)}`);
      if (typeof me.teamGuid === 'string' && me.teamGuid !== '') c.fail(`the guest has the team ${JSON.stringify(me.teamGuid)}`);
      const files = c.ok(await c.probe.withToken(token, '/files'));
      const ids = Array.isArray(files) ? files.filter(isRecord).map((file) => file.id) : [];
      if (ids.length > 1) c.fail(`GET /files answers the guest ${ids.length} files; a guest has one`);
      for (const id of ids) {
        const file = await c.probe.withToken(token, `/files/${seg(String(id))}`);
        if (file.status === 200 && isRecord(file.body) && isRecord(file.body.permissions) && file.body.permissions.manageable === true)
          c.fail(`the guest may manage file ${String(id)}`);
      }
      if (c.found.fileId && !ids.includes(c.found.fileId)) {
        const other = await c.probe.withToken(token, `/files/${seg(c.found.fileId)}`);
        if (other.status === 200) c.fail(`GET /files/${c.found.fileId} (not the guest's file) answered 200 to the guest`);
      }
      const member = await c.probe.withToken(token, `/users/${seg(c.found.userId)}`);
      if (member.status === 200) c.fail(`GET /users/${c.found.userId} (a directory member) answered 200 to the guest`);
      const team = await c.probe.withToken(token, '/users/current/team');
      if (team.status === 200) c.fail('GET /users/current/team answered a team to the guest');
      const search = await c.probe.withToken(token, '/search', { method: 'POST', body: { type: 'recent_user,collaborator,team_member,department', keyword: '' } });
      if (search.status === 200 && isRecord(search.body)) {
        for (const [kind, page] of Object.entries(search.body)) {
          if (isRecord(page) && Array.isArray(page.results) && page.results.length > 0) c.fail(`POST /search lists ${page.results.length} ${kind} to the guest`);
        }
      }
    },
  },
];
