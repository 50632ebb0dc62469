import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { prng } from '../../bench/generate.js';
import { SUBSCRIBABLE_TYPES } from '../../src/notify/channel.js';
import { objectKey } from '../../src/storage/object-key.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { CLI_TOKEN_SECRET, cliEnv, startCli } from '../cli/run-cli.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { startSmtpServer } from '../notify/smtp-receiver.js';
import { APP, FILE, MIX_STEPS, mixStep, OTHER, type MixEvent } from './crash-event-mix.js';
import { shareLinkLoad, shareLinkProblems } from './crash-share-links.js';
import { seenByMail, seenByWebhookChannel, type Seen } from './crash-deliveries.js';
import { startReceiver } from './webhook-receiver.js';

/**
 * Issue 23 item 3: while events of every kind and action (crash-event-mix.ts), directory writes
 * (management API and SCIM), uploads and share-link use (crash-share-links.ts) run at once, the
 * compiled service (`node bin/collab-host.js serve`, as in production) is killed with SIGKILL at seeded moments and restarted; at the end every 2xx
 * answered before a kill is reflected exactly once: each acknowledged event stored once with its effects
 * once, each due reminder fired once, each directory write present, each upload's bytes as sent, and each
 * notification delivered at least once to every receiver (NOTIFY_WEBHOOK_URLS, a webhook channel and an
 * e-mail channel over a real SMTP server), all its copies to one receiver and person under one
 * idempotency key. An event is sent again, unchanged, until it is acknowledged, as the platform does.
 * Needs dist/ (`npm ci` builds it). The stores run side by side; each start of the service is most of
 * a store's time on a loaded machine.
 */
const SEED = 23;
const KILLS = 5;
/** Each kill comes after this many more acknowledgements, plus up to KILL_SPREAD (seeded). */
const KILL_AFTER = 4;
const KILL_SPREAD = 10;
/** A reminder that must fire is due this long after it is sent. */
const DUE_IN_MS = 1500;
/** Share links made per start of the service (refused token requests stay under the per-address limit). */
const SHARE_LINKS_PER_START = 3;
const ADMIN_KEY = 'crash-admin-key-0123456789';
const SCIM_TOKEN = 'crash-scim-token-0123456789';
const ENTRY = [fileURLToPath(new URL('../../bin/collab-host.js', import.meta.url))];

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (rows: Iterable<string>) => {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row] = (counts[row] ?? 0) + 1;
  return counts;
};

async function crashRun(dialect: DialectName, dir: string, cleanups: Array<() => Promise<void>>) {
  const began = Date.now();
  const random = prng(SEED); // the kill moments and upload bytes of a run, the same every run
  const receiver = await startReceiver('crash-webhook-secret');
  cleanups.push(receiver.close);
  const chat = await startReceiver('crash-chat-secret');
  cleanups.push(chat.close);
  const smtp = await startSmtpServer();
  cleanups.push(smtp.close);
  let url = `sqlite:${join(dir, 'store.db')}`;
  let openStore = () => openDatabase(url);
  if (dialect !== 'sqlite') {
    const fresh = await freshStore(dialect);
    cleanups.push(fresh.drop);
    url = fresh.url;
    openStore = () => fresh.open();
  }
  const env = cliEnv(url, {
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_API_KEY: ADMIN_KEY,
    APP_ID: APP.appId,
    APP_SECRET: APP.appSecret,
    SCIM_TOKEN,
    SCIM_TEAM_ID: 'scimco',
    NOTIFY_WEBHOOK_URLS: receiver.url,
    // Mentions go out at once (no digest window to wait out).
    NOTIFY_DIGEST_WINDOW: '0',
    FILE_STORAGE: `fs:${join(dir, 'files')}`,
  });
  let server: Awaited<ReturnType<typeof startCli>> | undefined;
  let address = '';
  const starts: number[] = [];
  const start = async () => {
    const startedAt = Date.now();
    server = await startCli(['serve'], { cwd: dir, env, ready: /curl -H .*\n/, timeoutMs: 240_000, entry: ENTRY });
    starts.push(Date.now() - startedAt);
    address = /listening on (\S+)/.exec(server.stdout())![1]!;
    return server;
  };
  cleanups.push(async () => server?.stop());
  let current = await start(); // seeds the demo directory

  /** Answers by request (method and first path segments) and status. */
  const answers = new Map<string, number>();
  /** Answers no retry can mend (4xx): each is a failure of the test. */
  const refused: string[] = [];
  /** Requests answered, and connections refused while the service was down (each tried again). */
  let requests = 0;
  let refusedConnections = 0;
  let answerMs = 0;
  /**
   * One request to whichever instance is up; its status (0 when the connection failed: not acknowledged)
   * and text. A 4xx is a failure of the test unless its error code is the `refusal` expected.
   */
  const request = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    refusal?: string,
  ): Promise<{ status: number; text: string }> => {
    const sentAt = Date.now();
    try {
      const response = await fetch(`${address}${path}`, { method, headers, body, signal: AbortSignal.timeout(10_000) });
      requests += 1;
      answerMs += Date.now() - sentAt;
      const text = await response.text();
      // A refusal (ours: overloaded, database unavailable; or an expected 4xx) is named by its code.
      const errorCode = /"code":"([^"]+)"/.exec(text)?.[1] ?? '';
      const code = response.status >= 400 ? ` ${errorCode}` : '';
      // A share link's code is a credential: never in a key.
      const route = path.startsWith('/share-links/') ? '/share-links/…/token' : `${path.split('/').slice(0, 3).join('/')}${path.endsWith('/content') ? '/…/content' : ''}`;
      const key = `${method} ${route} ${response.status}${code}`;
      answers.set(key, (answers.get(key) ?? 0) + 1);
      if (response.status >= 400 && response.status < 500 && (refusal === undefined || errorCode !== refusal))
        refused.push(`${method} ${route} ${response.status}: ${text.slice(0, 300)}`);
      return { status: response.status, text };
    } catch {
      refusedConnections += 1;
      await pause(100); // down: try again a little later
      return { status: 0, text: '' };
    }
  };
  const send = async (method: string, path: string, headers: Record<string, string>, body: string | Buffer) => (await request(method, path, headers, body)).status;
  const admin = (method: string, path: string, body: unknown, type = 'application/json') =>
    send(method, path, { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': type }, type === 'application/json' ? JSON.stringify(body) : (body as Buffer));

  // A webhook channel and an e-mail channel, each carrying the personal notices of the demo team and
  // (the webhook) every type as team messages; no rate limit to wait out.
  const channel = (id: string, body: Record<string, unknown>) => admin('PUT', `/api/notification-channels/${id}`, { personal: true, ratePerMinute: 10_000, ...body });
  expect(await channel('crash-chat', { kind: 'webhook', name: 'Crash chat', target: chat.url, secret: 'crash-chat-secret', subscriptions: [...SUBSCRIBABLE_TYPES] })).toBe(201);
  expect(await channel('crash-mail', { kind: 'email', name: 'Crash mail', target: smtp.url, from: 'notify@crash.example.com' })).toBe(201);

  const acked = { events: [] as MixEvent[], users: [] as string[], scim: [] as string[], uploads: new Map<string, string>() };
  let stop = false;
  let step = 0;
  /** The steps of the mix (modulo its length) acknowledged whole. */
  const stepsDone = new Set<number>();
  let version = 1;
  const loop = (work: () => Promise<void>) => async () => {
    while (!stop) await work();
  };
  /** Sends the event until it is acknowledged (as the platform does); false when it was refused. */
  const deliverEvent = async (event: MixEvent): Promise<boolean> => {
    for (;;) {
      const status = await send('POST', '/events', event.headers(), event.body);
      if (status === 200) return true;
      if (status >= 400 && status < 500) return false;
    }
  };
  const eventWorker = loop(async () => {
    // A step's events in order, each acknowledged before the next (a reminder is created before it moves).
    const index = step++;
    for (const event of mixStep(index, CLI_TOKEN_SECRET, { dueInMs: DUE_IN_MS, version: version++ })) {
      if (!(await deliverEvent(event))) return;
      acked.events.push(event);
    }
    stepsDone.add(index % MIX_STEPS);
  });
  let userIndex = 0;
  let scimIndex = 0;
  let uploadIndex = 0;
  // Share links (issue 24): a few links per start of the service, some with maxUses, each asked for a
  // token one more time than it may give, each guest opening the file.
  const shares = shareLinkLoad({ request, adminKey: ADMIN_KEY, fileId: FILE, generation: () => starts.length, perStart: SHARE_LINKS_PER_START, stopped: () => stop });
  const workers = [
    eventWorker,
    eventWorker,
    eventWorker,
    loop(async () => {
      const id = `crash-u-${userIndex++}`;
      const status = await admin('PUT', `/api/users/${id}`, { name: `Crash ${id}`, email: `${id}@galaxy.example.com`, teamId: 'galaxy', departmentIds: ['rd'] });
      if (status === 200 || status === 201) acked.users.push(id);
    }),
    loop(async () => {
      const userName = `scim-${scimIndex++}@scimco.example.com`;
      const body = {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName,
        displayName: userName,
        externalId: `ext-${userName}`,
        emails: [{ value: userName, primary: true }],
      };
      const status = await send('POST', '/scim/v2/Users', { authorization: `Bearer ${SCIM_TOKEN}`, 'content-type': 'application/scim+json' }, JSON.stringify(body));
      if (status === 201) acked.scim.push(userName);
    }),
    loop(async () => {
      const id = `up-${uploadIndex++}`;
      const file = {
        name: `Upload ${id}.txt`,
        type: 'file',
        ext: 'txt',
        creatorId: 'zhangsan',
        teamId: 'galaxy',
        createdAt: '2024-01-01T00:00:00Z',
        updatedAt: '2024-01-01T00:00:00Z',
        downloadUrl: `https://oa.galaxy.example.com/files/${id}`,
      };
      const created = await admin('PUT', `/api/files/${id}`, file);
      if (created !== 200 && created !== 201) return;
      const bytes = Buffer.from(Array.from({ length: 2000 + Math.floor(random() * 20_000) }, () => Math.floor(random() * 256)));
      const status = await admin('PUT', `/api/files/${id}/content`, bytes, 'application/octet-stream');
      if (status === 200 || status === 201) acked.uploads.set(id, sha256(bytes));
    }),
    loop(shares.work),
  ];
  const running = workers.map((worker) => worker());
  const answered = () => acked.events.length + acked.users.length + acked.scim.length + acked.uploads.size + shares.acknowledged();
  /** Lets the load run until `more` further requests were acknowledged (at most a minute). */
  const untilAcknowledged = async (more: number) => {
    const target = answered() + more;
    for (const deadline = Date.now() + 60_000; answered() < target && Date.now() < deadline;) await pause(10);
  };
  const phases: number[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    // A seeded moment, with requests of every kind in flight.
    const phaseStart = Date.now();
    await untilAcknowledged(KILL_AFTER + Math.floor(random() * KILL_SPREAD));
    phases.push(Date.now() - phaseStart);
    const killed = current;
    const exited = new Promise((resolve) => killed.child.once('exit', resolve));
    killed.child.kill('SIGKILL');
    await exited;
    current = await start();
  }
  const lastStart = Date.now();
  await untilAcknowledged(KILL_AFTER);
  // The last instance runs until every step of the mix (each kind and action) was acknowledged once, its
  // share links were made and used up, and a user, a SCIM user and an upload (two requests) were
  // acknowledged, with no kill in between (a kill may cut short those of the others).
  const everyWriteAcked = () => acked.users.length > 0 && acked.scim.length > 0 && acked.uploads.size > 0;
  for (const deadline = Date.now() + 60_000; (stepsDone.size < MIX_STEPS || !shares.settled() || !everyWriteAcked()) && Date.now() < deadline;) await pause(10);
  stop = true;
  await Promise.all(running);
  const loadDone = Date.now();

  const store: OpenDatabase = await openStore();
  cleanups.push(() => store.close());
  // Drain: every event processed, every due reminder fired, every delivery done (a delivery claimed by a
  // killed instance is taken again once its lease runs out).
  const count1 = (n: unknown) => Number(n);
  // A reminder that must fire may still be ahead of us when the load stops (sent in its last second and due
  // up to DUE_IN_MS later, rounded to the second): wait for those by id, not only for those already due.
  const mustFire = acked.events.flatMap((event) => (event.expected.reminder?.status === 'fired' ? [event.expected.reminder.id] : []));
  for (const deadline = Date.now() + 70_000; ;) {
    const pending = await store.db
      .selectFrom('events')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .where('outcome', '=', 'pending')
      .executeTakeFirstOrThrow();
    const waiting = await store.db
      .selectFrom('reminders')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .where('status', '=', 'scheduled')
      .where((eb) => eb.or([eb('due_at_ms', '<=', Date.now()), ...(mustFire.length > 0 ? [eb('id', 'in', mustFire)] : [])]))
      .executeTakeFirstOrThrow();
    const undelivered = await store.db
      .selectFrom('notification_deliveries')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    if (count1(pending.n) + count1(waiting.n) + count1(undelivered.n) === 0) break;
    if (Date.now() > deadline) throw new Error(`not drained: ${pending.n} events pending, ${waiting.n} reminders due, ${undelivered.n} deliveries pending`);
    await pause(200);
  }
  const drained = Date.now();
  expect(refused).toEqual([]);

  // Events: each acknowledged one stored once, processed, its effects once.
  const events = await store.db.selectFrom('events').select(['id', 'kind', 'body', 'outcome']).execute();
  expect(events.filter((row) => row.outcome !== 'processed').map((row) => `${row.kind} ${row.outcome} ${row.body}`)).toEqual([]);
  const byBody = new Map<string, number[]>();
  for (const row of events) byBody.set(row.body, [...(byBody.get(row.body) ?? []), Number(row.id)]);
  const notifications = await store.db.selectFrom('notifications').select(['id', 'type', 'event_id', 'data', 'dedupe_key']).execute();
  const activity = await store.db.selectFrom('activity').select(['event_id', 'kind']).execute();
  const revisions = await store.db.selectFrom('revisions').select('event_id').execute();
  const reminders = new Map((await store.db.selectFrom('reminders').select(['id', 'status']).execute()).map((row) => [row.id, row.status]));
  const fired = count(notifications.filter((n) => n.type === 'reminder.due').map((n) => (JSON.parse(n.data) as { reminderId: string }).reminderId));
  expect(Object.entries(fired).filter(([, times]) => times !== 1)).toEqual([]); // no reminder fired twice
  expect(Object.entries(count(notifications.map((n) => n.dedupe_key ?? n.id))).filter(([, times]) => times !== 1)).toEqual([]);
  const ofEvent = <T extends { event_id: number | null }>(rows: readonly T[]) => {
    const map = new Map<number, T[]>();
    for (const row of rows) if (row.event_id !== null) map.set(Number(row.event_id), [...(map.get(Number(row.event_id)) ?? []), row]);
    return map;
  };
  const [noticesOf, activityOf, revisionsOf] = [ofEvent(notifications), ofEvent(activity), ofEvent(revisions)];
  const kinds = new Set<string>();
  for (const event of acked.events) {
    const label = `${event.kind} ${event.action} ${event.body}`;
    const ids = byBody.get(event.body) ?? [];
    expect(ids, label).toHaveLength(1);
    const id = ids[0]!;
    expect(count((noticesOf.get(id) ?? []).map((n) => n.type)), label).toEqual(event.expected.notifications);
    expect(count((activityOf.get(id) ?? []).map((a) => a.kind)), label).toEqual(event.expected.activity);
    expect(revisionsOf.get(id)?.length ?? 0, label).toBe(event.expected.revision ? 1 : 0);
    const reminder = event.expected.reminder;
    if (reminder) {
      expect(reminders.get(reminder.id), label).toBe(reminder.status);
      expect(fired[reminder.id] ?? 0, label).toBe(reminder.status === 'fired' ? 1 : 0);
    }
    kinds.add(`${event.kind}:${event.action}`);
  }
  // Directory writes: every acknowledged one present.
  const users = new Set((await store.db.selectFrom('users').select('id').execute()).map((row) => row.id));
  expect(acked.users.filter((id) => !users.has(id))).toEqual([]);
  const scimNames = new Set((await store.db.selectFrom('scim_resources').select('name_key').where('kind', '=', 'User').execute()).map((row) => row.name_key.toLowerCase()));
  expect(acked.scim.filter((userName) => !scimNames.has(userName.toLowerCase()))).toEqual([]);
  // Uploads: the row and the bytes under fs: match what was sent.
  const contents = new Map((await store.db.selectFrom('file_contents').select(['file_id', 'sha256']).execute()).map((row) => [row.file_id, row.sha256]));
  for (const [id, hash] of acked.uploads) {
    expect(contents.get(id), id).toBe(hash);
    expect(sha256(readFileSync(join(dir, 'files', objectKey(id)))), id).toBe(hash);
  }
  // Share links: every acknowledged link listed once, within its maxUses, every acknowledged guest token
  // still opening the file; refusals only link_used_up (the 4xx above), no 5xx but 503 (a killed instance).
  expect(shares.faults).toEqual([]);
  expect(await shareLinkProblems(request, ADMIN_KEY, FILE, shares.links)).toEqual([]);

  // Notifications: to NOTIFY_WEBHOOK_URLS, every one at least once, every copy under its own id.
  for (const row of notifications) {
    const receipts = receiver.forNotification(row.id);
    expect(receipts.length, `${row.type} ${row.id}`).toBeGreaterThanOrEqual(1);
    expect(new Set(receipts.map((receipt) => receipt.headers['x-collab-delivery']))).toEqual(new Set([row.id]));
  }
  const redelivered = notifications.filter((row) => receiver.forNotification(row.id).length > 1).length;
  // Channels: every delivery delivered, and seen by its receiver under exactly one idempotency key.
  const deliveries = await store.db
    .selectFrom('notification_deliveries')
    .select(['notification_id', 'receiver', 'recipient', 'status', 'last_error'])
    .where('receiver', 'like', 'channel:%')
    .execute();
  expect(deliveries.filter((d) => d.status !== 'delivered').map((d) => `${d.receiver} ${d.recipient} ${d.status} ${d.last_error}`)).toEqual([]);
  const emails = new Map((await store.db.selectFrom('users').select(['id', 'email']).execute()).map((row) => [row.id, row.email ?? '']));
  const tagOf = new Map(notifications.map((n) => [n.id, /tag:(m\d+)/.exec(n.data)?.[1] ?? '']));
  const mailed = deliveries.filter((d) => d.receiver === 'channel:crash-mail');
  const seen: Record<string, Seen> = {
    'crash-chat': seenByWebhookChannel(chat.received),
    'crash-mail': seenByMail(smtp.received, new Map(mailed.map((d) => [tagOf.get(d.notification_id)!, d.notification_id]))),
  };
  const summary = {
    dialect,
    kills: KILLS,
    seed: SEED,
    requests,
    refusedConnections,
    acknowledged: answered(),
    events: acked.events.length,
    eventKinds: kinds.size,
    users: acked.users.length,
    scim: acked.scim.length,
    uploads: acked.uploads.size,
    shareLinks: shares.links.length,
    guestTokens: shares.links.reduce((sum, link) => sum + link.guests.length, 0),
    usedUpRefusals: shares.links.reduce((sum, link) => sum + link.refusals.length, 0),
    notifications: notifications.length,
    webhookRedelivered: redelivered,
    channelDeliveries: deliveries.length,
    chatRepeats: seen['crash-chat']!.repeats,
    mails: smtp.received.length,
    mailRepeats: seen['crash-mail']!.repeats,
    smtpResets: smtp.errors.length,
    startsS: starts.map((ms) => +(ms / 1000).toFixed(1)),
    phasesS: phases.map((ms) => +(ms / 1000).toFixed(1)),
    meanAnswerMs: Math.round(answerMs / Math.max(1, requests)),
    loadS: +((loadDone - began) / 1000).toFixed(1),
    afterLastStartS: +((loadDone - lastStart) / 1000).toFixed(1),
    drainS: +((drained - loadDone) / 1000).toFixed(1),
    totalS: +((Date.now() - began) / 1000).toFixed(1),
    answers: Object.fromEntries(answers),
  };
  console.log(`crash test: ${JSON.stringify(summary)}`);
  const keyProblems: string[] = [];
  for (const delivery of deliveries) {
    const keys = seen[delivery.receiver.slice('channel:'.length)]!.keys.get(`${delivery.notification_id}|${delivery.recipient === null ? '' : emails.get(delivery.recipient)}`);
    if (keys?.size !== 1) {
      const notice = notifications.find((n) => n.id === delivery.notification_id);
      keyProblems.push(
        `${delivery.receiver} ${notice?.type} ${delivery.notification_id} (${tagOf.get(delivery.notification_id)}) to ${delivery.recipient}: under ${keys?.size ?? 0} keys ${JSON.stringify(seen[delivery.receiver.slice('channel:'.length)]!.messages.filter((m) => keys?.has(m.key)))}`,
      );
    }
  }
  expect(keyProblems).toEqual([]);
  for (const [name, channelSeen] of Object.entries(seen)) expect(channelSeen.mismatched, name).toEqual([]);
  expect(mailed.length).toBeGreaterThan(0);
  expect(smtp.to(emails.get(OTHER)!).length).toBeGreaterThan(0);

  expect(kinds.size).toBe(18); // every kind and action of part 6 acknowledged at least once
  expect(acked.users.length * acked.scim.length * acked.uploads.size).toBeGreaterThan(0);
  expect(shares.links.filter((link) => link.maxUses !== null && link.guests.length === link.maxUses && link.refusals.length > 0).length).toBeGreaterThan(0);
  return summary;
}

// The stores share nothing (own file or schema, own receivers): they run side by side.
describe.concurrent('SIGKILL under mixed load', () => {
  for (const dialect of dialects) {
    it(`[${dialect}] answers every acknowledged request exactly once after ${KILLS} seeded kills`, { timeout: 600_000 }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ch-crash-mixed-'));
      const cleanups: Array<() => Promise<void>> = [];
      try {
        await crashRun(dialect, dir, cleanups);
      } finally {
        for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
