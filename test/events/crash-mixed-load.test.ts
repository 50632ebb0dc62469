import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { prng } from '../../bench/generate.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import { formatTime } from '../../src/directory/time.js';
import { objectKey } from '../../src/storage/object-key.js';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
import { CLI_TOKEN_SECRET, cliEnv, startCli } from '../cli/run-cli.js';
import { createTestSchema, dialects, postgresUrl } from '../helpers/stores.js';
import { startReceiver } from './webhook-receiver.js';

/**
 * Issue 23 item 3: while events (comments, reminders), directory writes (management API and SCIM) and
 * uploads run at once, the compiled service (`node bin/collab-host.js serve`, as in production) is killed
 * with SIGKILL at seeded random moments and restarted; at the end every 2xx answered before a kill is
 * reflected exactly once. Needs dist/ (`npm ci` builds it). On an idle machine a store takes well under two
 * minutes (most of it the leases of deliveries a killed instance had claimed); the time-outs are for a
 * loaded one, where each start of the service takes far longer.
 */
const SEED = 23;
const KILLS = 5;
const ADMIN_KEY = 'crash-admin-key-0123456789';
const SCIM_TOKEN = 'crash-scim-token-0123456789';
const ENTRY = [fileURLToPath(new URL('../../bin/collab-host.js', import.meta.url))];

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of dialects) {
  describe(`SIGKILL under mixed load [${dialect}]`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ch-crash-mixed-'));
    const cleanups: Array<() => Promise<void>> = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      rmSync(dir, { recursive: true, force: true });
    }, 180_000);

    it(`answers every acknowledged request exactly once after ${KILLS} seeded kills`, { timeout: 900_000 }, async () => {
      const began = Date.now();
      const random = prng(SEED); // the kill moments and upload bytes of a run, the same every run
      const receiver = await startReceiver('crash-webhook-secret');
      cleanups.push(receiver.close);
      let url = `sqlite:${join(dir, 'store.db')}`;
      let openStore = () => openDatabase(url);
      if (dialect === 'postgres') {
        const { schema, drop } = await createTestSchema();
        cleanups.push(drop);
        const address = new URL(postgresUrl!);
        address.searchParams.set('options', `-c search_path=${schema},public`);
        url = address.href;
        openStore = () => openDatabase(postgresUrl!, { schema, poolSize: 2 });
      }
      const env = cliEnv(url, {
        PORT: '0',
        LOG_LEVEL: 'silent',
        ADMIN_API_KEY: ADMIN_KEY,
        SCIM_TOKEN,
        SCIM_TEAM_ID: 'scimco',
        NOTIFY_WEBHOOK_URLS: receiver.url,
        FILE_STORAGE: `fs:${join(dir, 'files')}`,
      });
      let server: Awaited<ReturnType<typeof startCli>> | undefined;
      let address = '';
      const start = async () => {
        const started = await startCli(['serve'], { cwd: dir, env, ready: /curl -H .*\n/, timeoutMs: 240_000, entry: ENTRY });
        server = started;
        address = /listening on (\S+)/.exec(started.stdout())![1]!;
        return started;
      };
      cleanups.push(async () => server?.stop());
      let current = await start(); // seeds the demo directory

      const token = mintUserToken('zhangsan', CLI_TOKEN_SECRET, 3600);
      /** Answers by request (method and first path segments) and status: what the log line reports. */
      const answers = new Map<string, number>();
      /** One request to whichever instance is up; its status, 0 when the connection failed (not acknowledged). */
      const send = async (method: string, path: string, headers: Record<string, string>, body: string | Buffer): Promise<number> => {
        try {
          const response = await fetch(`${address}${path}`, { method, headers, body, signal: AbortSignal.timeout(10_000) });
          await response.arrayBuffer();
          const key = `${method} ${path.split('/').slice(0, 3).join('/')}${path.endsWith('/content') ? '/…/content' : ''} ${response.status}`;
          answers.set(key, (answers.get(key) ?? 0) + 1);
          return response.status;
        } catch {
          await pause(100); // down: try again a little later
          return 0;
        }
      };
      const event = (kind: string, body: unknown) =>
        send('POST', '/events', { 'content-type': 'application/json', 'x-platform-sdk-event': kind, 'x-platform-token': token }, JSON.stringify(body));
      const admin = (method: string, path: string, body: unknown, type = 'application/json') =>
        send(method, path, { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': type }, type === 'application/json' ? JSON.stringify(body) : (body as Buffer));

      const acked = { comments: [] as string[], reminders: [] as string[], users: [] as string[], scim: [] as string[], uploads: new Map<string, string>() };
      let requests = 0;
      let stop = false;
      const loop = (work: (index: number) => Promise<void>) => async () => {
        for (let index = 0; !stop; index++) {
          await work(index);
          requests += 1;
        }
      };
      const workers = [
        loop(async (i) => {
          const guid = `c-${i}`;
          const body = { kind: 'comment', type: 'comment', action: 'create', fileId: 'plan-2024q3', userId: 'zhangsan', comment: { guid, content: guid } };
          if ((await event('Comment', body)) === 200) acked.comments.push(guid);
        }),
        loop(async (i) => {
          const id = `r-${i}`;
          const remindAt = formatTime(Date.now() + 2000);
          const body = { kind: 'mention', type: 'date_mention', action: 'create', fileId: 'plan-2024q3', userId: 'zhangsan', createData: { id, content: id, remindUserIds: ['lisi'], remindAt } };
          if ((await event('DateMention', body)) === 200) acked.reminders.push(id);
        }),
        loop(async (i) => {
          const id = `crash-u-${i}`;
          const status = await admin('PUT', `/api/users/${id}`, { name: `Crash ${i}`, email: `${id}@galaxy.example.com`, teamId: 'galaxy', departmentIds: ['rd'] });
          if (status === 200 || status === 201) acked.users.push(id);
        }),
        loop(async (i) => {
          const userName = `scim-${i}@scimco.example.com`;
          const body = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName, displayName: `SCIM ${i}`, externalId: `ext-${i}`, emails: [{ value: userName, primary: true }] };
          const status = await send('POST', '/scim/v2/Users', { authorization: `Bearer ${SCIM_TOKEN}`, 'content-type': 'application/scim+json' }, JSON.stringify(body));
          if (status === 201) acked.scim.push(userName);
        }),
        loop(async (i) => {
          const id = `up-${i}`;
          const file = { name: `Upload ${i}.txt`, type: 'file', ext: 'txt', creatorId: 'zhangsan', teamId: 'galaxy', createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z', downloadUrl: `https://oa.galaxy.example.com/files/${id}` };
          const created = await admin('PUT', `/api/files/${id}`, file);
          if (created !== 200 && created !== 201) return;
          const bytes = Buffer.from(Array.from({ length: 2000 + Math.floor(random() * 20_000) }, () => Math.floor(random() * 256)));
          const status = await admin('PUT', `/api/files/${id}/content`, bytes, 'application/octet-stream');
          if (status === 200 || status === 201) acked.uploads.set(id, sha256(bytes));
        }),
      ];
      const running = workers.map((worker) => worker());
      const answered = () => acked.comments.length + acked.reminders.length + acked.users.length + acked.scim.length + acked.uploads.size;
      /** Lets the load run until `more` further requests were acknowledged (at most a minute). */
      const untilAcknowledged = async (more: number) => {
        const target = answered() + more;
        for (const deadline = Date.now() + 60_000; answered() < target && Date.now() < deadline; ) await pause(10);
      };
      for (let kill = 0; kill < KILLS; kill++) {
        // A seeded moment: after 10 to 40 more acknowledgements, with requests of every kind in flight.
        await untilAcknowledged(10 + Math.floor(random() * 30));
        const killed = current;
        const exited = new Promise((resolve) => killed.child.once('exit', resolve));
        killed.child.kill('SIGKILL');
        await exited;
        current = await start();
      }
      await untilAcknowledged(20);
      stop = true;
      await Promise.all(running);
      const loadDone = Date.now();

      const store: OpenDatabase = await openStore();
      cleanups.push(() => store.close());
      // Drain: every event processed, every reminder fired, every delivery done (a delivery claimed by a
      // killed instance is taken again once its lease runs out).
      const deadline = Date.now() + 70_000;
      for (;;) {
        const pending = await store.db.selectFrom('events').select(({ fn }) => fn.countAll<number>().as('n')).where('outcome', '=', 'pending').executeTakeFirstOrThrow();
        const waiting = await store.db.selectFrom('reminders').select(({ fn }) => fn.countAll<number>().as('n')).where('status', '=', 'scheduled').executeTakeFirstOrThrow();
        const undelivered = await store.db.selectFrom('notification_deliveries').select(({ fn }) => fn.countAll<number>().as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow();
        if (Number(pending.n) + Number(waiting.n) + Number(undelivered.n) === 0) break;
        if (Date.now() > deadline) throw new Error(`not drained: ${pending.n} events pending, ${waiting.n} reminders waiting, ${undelivered.n} deliveries pending`);
        await pause(250);
      }

      // Events: each acknowledged one stored once, processed, its effects once.
      const events = await store.db.selectFrom('events').select(['id', 'kind', 'body', 'outcome']).execute();
      const byKey = new Map<string, Array<{ id: number; outcome: string }>>();
      for (const row of events) {
        const body = JSON.parse(row.body) as { comment?: { guid: string }; createData?: { id: string } };
        const key = body.comment?.guid ?? body.createData?.id;
        if (key) byKey.set(key, [...(byKey.get(key) ?? []), { id: Number(row.id), outcome: row.outcome }]);
      }
      for (const [key, logged] of byKey) expect(logged, key).toHaveLength(1);
      const notifications = await store.db.selectFrom('notifications').select(['id', 'type', 'event_id', 'data']).execute();
      const commentNotices = new Map<number, number>();
      for (const row of notifications.filter((n) => n.type === 'comment.created')) commentNotices.set(Number(row.event_id), (commentNotices.get(Number(row.event_id)) ?? 0) + 1);
      for (const guid of acked.comments) {
        const [logged] = byKey.get(guid) ?? [];
        expect(logged?.outcome, guid).toBe('processed');
        expect(commentNotices.get(logged!.id), guid).toBe(1);
      }
      // Reminders: each acknowledged one stored once and fired once.
      const reminders = new Map((await store.db.selectFrom('reminders').select(['id', 'status']).execute()).map((row) => [row.id, row.status]));
      const due = new Map<string, number>();
      for (const row of notifications.filter((n) => n.type === 'reminder.due')) {
        const id = (JSON.parse(row.data) as { reminderId: string }).reminderId;
        due.set(id, (due.get(id) ?? 0) + 1);
      }
      for (const id of acked.reminders) {
        expect(reminders.get(id), id).toBe('fired');
        expect(due.get(id), id).toBe(1);
      }
      expect([...due.values()].every((count) => count === 1)).toBe(true);
      // Directory writes: every acknowledged one present.
      const users = new Set((await store.db.selectFrom('users').select('id').execute()).map((row) => row.id));
      for (const id of acked.users) expect(users.has(id), id).toBe(true);
      const scimNames = new Set((await store.db.selectFrom('scim_resources').select('name_key').where('kind', '=', 'User').execute()).map((row) => row.name_key.toLowerCase()));
      for (const userName of acked.scim) expect(scimNames.has(userName.toLowerCase()), userName).toBe(true);
      // Uploads: the row and the bytes under fs: match what was sent.
      const contents = new Map((await store.db.selectFrom('file_contents').select(['file_id', 'sha256']).execute()).map((row) => [row.file_id, row.sha256]));
      for (const [id, hash] of acked.uploads) {
        expect(contents.get(id), id).toBe(hash);
        expect(sha256(readFileSync(join(dir, 'files', objectKey(id)))), id).toBe(hash);
      }
      // Notifications: every one delivered at least once, every attempt under its own delivery id.
      for (const row of notifications) {
        const receipts = receiver.forNotification(row.id);
        expect(receipts.length, `${row.type} ${row.id}`).toBeGreaterThanOrEqual(1);
        expect(new Set(receipts.map((receipt) => receipt.headers['x-collab-delivery']))).toEqual(new Set([row.id]));
      }
      const redelivered = notifications.filter((row) => receiver.forNotification(row.id).length > 1).length;

      const acknowledged = answered();
      console.log(
        `crash test [${dialect}]: ${KILLS} SIGKILLs (seed ${SEED}), ${requests} requests, ${acknowledged} acknowledged ` +
          `(${acked.comments.length} comments, ${acked.reminders.length} reminders, ${acked.users.length} API users, ${acked.scim.length} SCIM users, ${acked.uploads.size} uploads), ` +
          `${notifications.length} notifications (${redelivered} delivered again after a kill, same X-Collab-Delivery); ` +
          `load ${((loadDone - began) / 1000).toFixed(1)} s, total ${((Date.now() - began) / 1000).toFixed(1)} s; answers: ${JSON.stringify(Object.fromEntries(answers))}`,
      );
      expect(acked.comments.length * acked.reminders.length * acked.users.length * acked.scim.length * acked.uploads.size).toBeGreaterThan(0);

    });
  });
}
