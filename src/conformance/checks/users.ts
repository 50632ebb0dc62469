import type { Check } from '../check.js';
import { isRecord } from '../jwt.js';
import { seg } from '../probe.js';
import { CURRENT_USER, USER, WATERMARK, arrayOf } from '../shapes.js';

/** Part 4.2: the user endpoints answer the shapes of 2.4 and 2.8. */
export const userChecks: Check[] = [
  {
    id: 'users.current-info',
    group: 'users',
    section: '4.2',
    title: 'GET /users/current/info answers a User with id, name, avatar, email (teamGuid a string when present)',
    async run(c) {
      c.shape(CURRENT_USER, c.ok(await c.probe.read('/users/current/info')), 'current user');
    },
  },
  {
    id: 'users.get',
    group: 'users',
    section: '4.2',
    title: 'GET /users/{userId} answers that User',
    async run(c) {
      const body = c.ok(await c.probe.read(`/users/${seg(c.found.userId)}`));
      if (body === undefined || !c.shape(USER, body, `user ${c.found.userId}`)) return;
      if (isRecord(body) && body.id !== c.found.userId) c.fail(`GET /users/${c.found.userId} answered the user ${JSON.stringify(body.id)}`);
    },
  },
  {
    id: 'users.batch',
    group: 'users',
    section: '4.2',
    title: 'POST /users/batch/get {ids} answers an array of User including the ones asked for',
    async run(c) {
      const me = c.found.userId;
      const body = c.ok(await c.probe.read('/users/batch/get', { method: 'POST', body: { ids: [me] } }));
      if (body === undefined || !c.shape(arrayOf(USER), body, 'batch')) return;
      if (!(body as Array<{ id: string }>).some((u) => u.id === me)) c.fail(`the batch for ["${me}"] does not contain user ${me}`);
    },
  },
  {
    id: 'users.watermark',
    group: 'users',
    section: '2.8',
    title: 'GET /users/{userId}/watermark answers { watermarks: string[] }',
    async run(c) {
      c.shape(WATERMARK, c.ok(await c.probe.read(`/users/${seg(c.found.userId)}/watermark`)), 'watermark');
    },
  },
];
