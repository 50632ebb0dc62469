import type { Check } from '../check.js';
import { isRecord } from '../jwt.js';
import { query, seg } from '../probe.js';
import { COLLABORATOR, arrayOf } from '../shapes.js';
import { collaborativeFiles } from './common.js';

interface Collaborator {
  id: string;
  isManager: boolean;
}

/** Part 4.1 and 2.1 rule 3: the collaborators of a file and their `isManager`, which spreadsheet locking trusts. */
export const collaboratorChecks: Check[] = [
  {
    id: 'collaborators.shape',
    group: 'collaborators',
    section: '4.1',
    title: 'GET /files/{fileId}/collaborators answers an array of User with a boolean isManager, each user once',
    async run(c) {
      c.fileId();
      for (const file of collaborativeFiles(c, 3)) {
        const body = c.ok(await c.probe.read(`/files/${seg(file.id)}/collaborators`));
        if (body === undefined || !c.shape(arrayOf(COLLABORATOR), body, `collaborators of ${file.id}`)) continue;
        const ids = (body as Collaborator[]).map((u) => u.id);
        const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
        if (twice.length > 0) c.fail(`collaborators of ${file.id}: listed twice: ${[...new Set(twice)].join(', ')}`);
      }
    },
  },
  {
    id: 'collaborators.is-manager',
    group: 'collaborators',
    section: '2.1',
    title: "a collaborator's isManager equals that user's manageable on the file (by-user-id with credentials; else the current user and the creator)",
    async run(c) {
      c.fileId();
      const credentials = c.probe.options.credentials;
      let compared = 0;
      for (const file of collaborativeFiles(c, 3)) {
        const listed = await c.probe.read(`/files/${seg(file.id)}/collaborators`);
        const own = await c.probe.read(`/files/${seg(file.id)}`);
        if (listed.status !== 200 || !Array.isArray(listed.body)) continue;
        const creatorId = isRecord(own.body) ? own.body.creatorId : undefined;
        for (const entry of listed.body) {
          if (!isRecord(entry) || typeof entry.id !== 'string' || typeof entry.isManager !== 'boolean') continue;
          let manageable: unknown;
          let source: string;
          if (credentials) {
            const path = `/admin/files/${seg(file.id)}/by-user-id${query({ userId: entry.id })}`;
            const answer = await c.probe.signed(credentials, { fileId: file.id, userId: entry.id }, path);
            if (answer.status !== 200) {
              c.fail(`GET ${path} (signed) answered ${answer.status}: cannot compare ${entry.id}'s isManager`);
              continue;
            }
            manageable = isRecord(answer.body) && isRecord(answer.body.permissions) ? answer.body.permissions.manageable : undefined;
            source = 'GET /admin/files/{fileId}/by-user-id';
          } else if (entry.id === c.found.userId && isRecord(own.body) && isRecord(own.body.permissions)) {
            manageable = own.body.permissions.manageable;
            source = 'GET /files/{fileId} as that user';
          } else if (entry.id === creatorId) {
            manageable = true;
            source = 'the creator rule of 2.1';
          } else {
            continue;
          }
          compared++;
          if (entry.isManager !== manageable) {
            c.fail(`file ${file.id}: collaborator ${entry.id} has isManager ${entry.isManager} but manageable ${JSON.stringify(manageable)} (${source})`);
          }
        }
      }
      if (compared === 0) return c.skip('no collaborator whose manageable the kit can learn (give --app-id and --app-secret to ask by-user-id)');
    },
  },
];
