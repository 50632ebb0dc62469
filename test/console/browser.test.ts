import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/composition/app.js';
import { readSyncConfig } from '../../src/config/sync.js';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { seedDemoIfEmpty } from '../../src/composition/demo-data.js';
import { composeDirectoryChanges } from '../../src/composition/directory-writes.js';
import { OutboxWorker } from '../../src/events/outbox-worker.js';
import { seatTaskWorker } from '../../src/composition/platform-wiring.js';
import { runLdapSync } from '../../src/sync/ldap/ldap-sync.js';
import { ldapSyncDeps } from '../../src/sync/sync-deps.js';
import { ChannelDispatcher } from '../../src/notify/dispatcher.js';
import { sqlSyncRuns } from '../../src/store/sync/sync-runs.js';
import { makeTestConfig, TEST_CONFIG_OVERRIDES, tokenFor } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { patchOp, scim, SCIM_TOKEN, USER_SCHEMA } from '../scim/scim-client.js';
import { buildConsoleInto, demoActivity, startHookReceiver, untilEventsProcessed } from './console-fixtures.js';

/**
 * The console in Debian's Chromium, driven by playwright-core, against collab-host on a real socket over
 * the demo company, on each store. Screenshots of every page go to test-results/console/<store>/ for a
 * person to look at (git-ignored).
 */
const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const KEY = 'console-admin-key-0123456789';
const SECRET = 'console-webhook-secret';
/**
 * SCIM keeps its own team; LDAP points at a port where nothing listens, so its run fails as an
 * unreachable directory server does.
 */
const SYNC_ENV: Record<string, string> = {
  SCIM_TOKEN,
  SCIM_TEAM_ID: 'scim-corp',
  SCIM_TEAM_NAME: '云端 SCIM',
  LDAP_URL: 'ldap://127.0.0.1:1',
  LDAP_BASE_DN: 'dc=example,dc=com',
  LDAP_TEAM_ID: 'ldap-corp',
};
if (!HAS_CHROMIUM && process.env.CI) throw new Error(`CI must run the console's browser tests: ${CHROMIUM} is missing (.ci/run installs it)`);
if (!HAS_CHROMIUM) {
  console.log(`\n*** Console browser tests SKIPPED: no Chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it) ***\n`);
}

let consoleDir = '';
beforeAll(async () => {
  if (HAS_CHROMIUM) consoleDir = await buildConsoleInto();
}, 120_000);
afterAll(async () => {
  if (consoleDir !== '') await rm(consoleDir, { recursive: true, force: true });
});

describeEachStore('console in a real browser', (store, dialect) => {
  describe.skipIf(!HAS_CHROMIUM)(`Chromium at ${CHROMIUM}`, () => {
    let app: FastifyInstance;
    let base: string;
    let browser: Browser;
    let page: Page;
    let receiver: Awaited<ReturnType<typeof startHookReceiver>>;
    let worker: OutboxWorker;
    let platform: RunningSimulator;
    let config: ReturnType<typeof makeTestConfig>;
    /** The SCIM id of the user the sync tests provision. */
    let yunId = '';
    const pageErrors: string[] = [];
    /** What the browser's console showed as errors (failed requests included), in order. */
    const consoleErrors: string[] = [];
    const shots = join('test-results', 'console', dialect);
    const shoot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    const goTo = async (title: string, heading = title) => {
      await page.getByRole('navigation').getByRole('link', { name: title }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    };

    beforeAll(async () => {
      await mkdir(shots, { recursive: true });
      await seedDemoIfEmpty(store());
      receiver = await startHookReceiver(500);
      // The platform simulator licenses one seat: a second activation is refused.
      platform = await startSimulator({ credentials: { appId: TEST_CONFIG_OVERRIDES.appId as string, appSecret: TEST_CONFIG_OVERRIDES.appSecret as string }, memberLimit: 1 });
      config = makeTestConfig({
        adminApiKey: KEY,
        notifyWebhookUrls: [receiver.url],
        notifyWebhookSecret: SECRET,
        platformApiUrl: platform.url,
        sync: readSyncConfig((name) => SYNC_ENV[name]),
      });
      app = await buildApp({ config, store: store(), logger: false, consoleDir });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      await demoActivity(app);
      await untilEventsProcessed(store());
      // One attempt per delivery, run by hand: the receiver's 500 fails the notification for good.
      worker = new OutboxWorker(store(), { secret: SECRET, maxAttempts: 1 });
      await worker.runOnce();
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
      page = await browser.newPage({ viewport: { width: 1360, height: 900 }, locale: 'zh-CN' });
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
    }, 60_000);
    afterEach(() => {
      // A script error leaves the page half-drawn: no test may pass over one.
      expect(pageErrors.splice(0)).toEqual([]);
    });
    afterAll(async () => {
      await browser?.close();
      await app?.close();
      await receiver?.close();
      await platform?.close();
    });

    it('signs in with the admin key (a wrong key is refused) and gets an HttpOnly, SameSite=Strict cookie', async () => {
      await page.goto(`${base}/console/`);
      await page.getByLabel('Admin key').waitFor();
      // Before anyone signs in the browser's console stays clean: no 401 from asking for a session, no missing favicon.
      expect(consoleErrors).toEqual([]);
      expect(await page.locator('link[rel="icon"]').count()).toBe(1);
      await page.getByLabel('Admin key').fill('not-the-admin-key-0123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('not the admin key');
      await shoot('01-sign-in');
      await page.getByLabel('Admin key').fill(KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const cookies = await page.context().cookies();
      expect(cookies.map(({ name, httpOnly, sameSite, path }) => ({ name, httpOnly, sameSite, path }))).toEqual([
        { name: 'collab_console', httpOnly: true, sameSite: 'Strict', path: '/' },
      ]);
      // The page's script cannot read the session cookie.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');
    });

    it('shows the overview: directory counts, health, intake with its chart, a failed notification and a late reminder', async () => {
      const stat = (label: string) => page.locator('.stat', { has: page.locator('.stat-label', { hasText: new RegExp(`^${label}$`) }) }).locator('.stat-value');
      await stat('Users').waitFor();
      expect(await stat('Users').textContent()).toBe('24');
      expect(await stat('Files').textContent()).toBe('10');
      expect(await stat('Departments').textContent()).toBe('12');
      expect(await stat('events received').textContent()).toBe('4');
      expect(await stat('failed notifications').textContent()).toBe('1');
      expect(await stat('late \\(due, not yet fired\\)').textContent()).toBe('1');
      expect(await stat('upcoming').textContent()).toBe('1');
      expect(await page.locator('.chart rect.bar').count()).toBe(60);
      // The chart fills its card's width (inside the card's 16 px padding), at this width and on a laptop's.
      const chartFill = async () => {
        const chart = await page.locator('.chart svg').boundingBox();
        const card = await page.locator('.panel', { has: page.locator('.chart') }).boundingBox();
        return Math.round(chart!.width - (card!.width - 2 * 16 - 2));
      };
      expect(await chartFill()).toBe(0);
      expect(await stat('/readyz').textContent()).toBe('ready');
      expect(await stat('refused').textContent()).toBe('1');
      expect(await stat('waiting for effects').textContent()).toBe('0');
      await shoot('02-overview');
    });

    it('finds 张三 by the pinyin initials zs, and shows a file with its grants', async () => {
      await goTo('Directory');
      await page.getByLabel('Search the directory').fill('zs');
      await page.locator('table.results tbody tr').first().getByText('张三').waitFor();
      expect(await page.locator('table.results tbody tr').first().locator('code').first().textContent()).toBe('zhangsan');
      expect(await page.locator('.tree').first().textContent()).toContain('Web 小组');
      await shoot('03-directory-users');
      await page.getByRole('tab', { name: 'files' }).click();
      await page.getByLabel('Search the directory').fill('jdjh');
      await page.locator('table.results tbody tr').first().getByText('2024 Q3 季度计划').waitFor();
      expect(await page.locator('table.results tbody tr').first().locator('.chip').allTextContents()).toEqual([
        'dept 研发中心 · editor',
        'user 陈静 · commenter',
        'team 星河科技 Galaxy Tech · viewer',
      ]);
      await shoot('04-directory-files');
    });

    it('explains a permission that comes from a department grant, with the ancestor and the path', async () => {
      await goTo('Explain access');
      await page.getByLabel('User', { exact: true }).fill('ww');
      await page.getByRole('option', { name: /王五/ }).click();
      await page.getByLabel('File', { exact: true }).fill('jdjh');
      await page.getByRole('option', { name: /2024 Q3 季度计划/ }).click();
      const editable = page.locator('tr[data-permission="editable"]');
      await editable.waitFor();
      expect(await editable.locator('.badge').textContent()).toBe('yes');
      expect(await editable.locator('ul.paths').textContent()).toBe('department 研发中心: editor — via 研发中心 › 前端组 › Web 小组');
      expect(await page.locator('tr[data-permission="manageable"] .badge').textContent()).toBe('no');
      expect(new URL(page.url()).hash).toBe('#/explain?user=wangwu&file=plan-2024q3');
      // The picks read as chosen values (ink, below the box), not as grey placeholders.
      expect(await page.getByLabel('User', { exact: true }).getAttribute('placeholder')).toBe('search to pick another');
      expect(await page.locator('.picked strong').allTextContents()).toEqual(['王五', '2024 Q3 季度计划']);
      await shoot('05-explain-access');
    });

    it('lists events with a filter and shows a body', async () => {
      await goTo('Events');
      await page.locator('table.results tbody tr').nth(3).waitFor();
      expect(await page.locator('table.results tbody tr').count()).toBe(4);
      await page.getByLabel('kind').selectOption('Comment');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.locator('table.results tbody tr').count()).toBe(1);
      await page.locator('table.results tbody tr').first().click();
      expect(await page.locator('pre.json').textContent()).toContain('请大家周五前看完 Q3 计划');
      await shoot('06-events');
    });

    it('re-sends a failed notification after its receiver is back', async () => {
      await goTo('Notifications');
      const failed = page.locator('article.notification');
      await failed.first().waitFor();
      expect(await failed.count()).toBe(1);
      expect(await failed.first().locator('.error-text').first().textContent()).toBe('HTTP 500');
      expect(await page.locator('.panel', { hasText: 'By receiver' }).textContent()).toContain(receiver.url);
      await shoot('07-notifications-failed');

      receiver.state.status = 200;
      await failed.first().getByRole('button', { name: 'Re-send' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toContain('queued again');
      await worker.runOnce();
      await page.getByRole('tab', { name: 'delivered' }).click();
      await page.locator('article.notification .badge', { hasText: 'delivered' }).first().waitFor();
      expect(receiver.state.received.map((r) => [r.type, r.answered])).toEqual([
        ['comment.created', 500],
        ['comment.created', 200],
      ]);
      await shoot('08-notifications-delivered');
    });

    it('shows a refused event with its reason and who sent it; a missing permission is not re-processed', async () => {
      await goTo('Events');
      await page.getByLabel('outcome').selectOption('refused');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.locator('table.results tbody tr').count()).toBe(1);
      await page.locator('table.results tbody tr').first().click();
      expect(await page.locator('pre.json').textContent()).toContain('我也想评论');
      expect(await page.locator('.panel .error').first().textContent()).toMatch(/comment/i);
      expect(await page.locator('p', { hasText: /^Sent by/ }).textContent()).toBe('Sent by alice');
      expect(await page.getByText('This refusal stands').count()).toBe(1);
      expect(await page.getByRole('button', { name: /Re-process/ }).count()).toBe(0);
      await shoot('08b-events-refusal-stands');
    });

    it('re-processes an event and says what happened, also when its outcome stays the same', async () => {
      // A comment action collab-host does not know: kept as unprocessed, and re-processing cannot change that.
      const body = { kind: 'comment', type: 'comment', action: 'resolve', fileId: 'plan-2024q3', userId: 'zhangsan', comment: { guid: 'c-resolve', content: '已解决' } };
      const pushed = await app.inject({
        method: 'POST',
        url: '/events',
        headers: { 'content-type': 'application/json', 'x-platform-sdk-event': 'Comment', 'x-platform-token': tokenFor('zhangsan', config) },
        payload: body,
      });
      expect(pushed.statusCode).toBe(200);
      const admin = { authorization: `Bearer ${KEY}` };
      await expect
        .poll(async () => ((await app.inject({ method: 'GET', url: '/api/events?outcome=unprocessed', headers: admin })).json() as { items: unknown[] }).items.length)
        .toBe(1);

      await goTo('Events');
      await page.getByLabel('outcome').selectOption('unprocessed');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.locator('table.results tbody tr').count()).toBe(1);
      // The filtered list, not the one shown before Apply answered (it may hold one row too).
      await expect.poll(() => page.locator('table.results tbody tr').first().locator('.badge').textContent()).toBe('unprocessed');
      await page.locator('table.results tbody tr').first().click();
      await page.getByRole('button', { name: /Re-process/ }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Re-processed: still unprocessed.');
      expect(await page.locator('table.results tbody tr').first().locator('.badge').textContent()).toBe('unprocessed');
      await shoot('08c-events-reprocessed');
    });

    it('shows late and upcoming reminders and who has a file open', async () => {
      await goTo('Reminders & presence', 'Reminders and presence');
      const late = page.locator('.panel', { hasText: 'Late (1)' });
      await late.waitFor();
      expect(await late.textContent()).toContain('提交季度总结');
      expect(await page.locator('.panel', { hasText: 'Upcoming (1)' }).textContent()).toContain('评审 Q3 预算');
      const presence = page.locator('.panel', { hasText: 'Presence' });
      await presence.getByText('tab-1').waitFor();
      expect(await presence.textContent()).toContain('2024 Q3 季度计划');
      await shoot('09-reminders-presence');
    });

    it('shows the last sync run of each source with counts and errors, the licence, and a failing seat task', async () => {
      // A SCIM push creates a user (and SCIM's team); an LDAP run cannot reach its server.
      const yun = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'yun@scim.example', displayName: '司马云' });
      expect(yun.status).toBe(201);
      yunId = yun.body.id;
      // An earlier LDAP run that left an entry out, recorded as a run records it (test/sync has the real ones).
      const records = sqlSyncRuns(store().db);
      const earlier = await records.start({ source: 'ldap', mode: 'full', dryRun: false, detail: null, startedAt: '2025-01-01T00:00:00Z' });
      const skipped = { dn: 'uid=nul,ou=销售部,dc=example,dc=com', reason: 'user "nul": name must be well-formed Unicode without NUL (U+0000)' };
      const counts = { created: 1, updated: 0, removed: 0, deactivated: 0, reactivated: 0, skipped: 1 };
      await records.finish(earlier, {
        status: 'ok',
        detail: 'read in full; 1 entry skipped',
        durationMs: 40,
        counts,
        changes: { users: { created: ['lilei'] } },
        skipped: [skipped],
        errors: [],
      });
      expect((await runLdapSync(ldapSyncDeps(config, store(), composeDirectoryChanges(config, store()))!, { mode: 'full' })).status).toBe('failed');
      // Bob's seat is given back, then asked for again while the one licensed seat is 张三's.
      platform.platform.world.seats.set('zhangsan', { status: 1, createdAt: '2025-01-01T00:00:00Z' });
      const admin = { authorization: `Bearer ${KEY}` };
      const bob = (await app.inject({ method: 'GET', url: '/api/users/bob', headers: admin })).json() as Record<string, unknown>;
      const seats = seatTaskWorker(config, store())!;
      for (const active of [false, true]) {
        expect((await app.inject({ method: 'PUT', url: '/api/users/bob', headers: admin, payload: { ...bob, active } })).statusCode).toBe(200);
        expect(await seats.runOnce()).toBe(1);
      }

      await goTo('Sync and seats');
      const scimRow = page.locator('tr[data-source="scim"]');
      await scimRow.locator('.badge').waitFor();
      expect(await scimRow.locator('td').allTextContents()).toEqual(expect.arrayContaining(['SCIM', 'ok', '2 created']));
      const ldapRow = page.locator('tr[data-source="ldap"]');
      expect(await ldapRow.locator('.badge').textContent()).toBe('failed');
      expect(await ldapRow.locator('.error-text').textContent()).toContain('ECONNREFUSED');
      const runs = page.locator('table.runs tbody tr');
      await expect.poll(() => runs.count()).toBe(3);
      expect(await runs.first().textContent()).toContain('LDAP');
      expect(await runs.nth(2).textContent()).toContain('POST /Users');
      // The run that skipped an entry says so, and names it by DN and reason when opened.
      const skippedRun = runs.nth(1).locator('details.skipped');
      expect(await skippedRun.locator('summary').textContent()).toBe('1 entry skipped');
      await skippedRun.locator('summary').click();
      expect(await skippedRun.locator('div').textContent()).toBe(`${skipped.dn}: ${skipped.reason}`);

      const stat = (label: string) => page.locator('.licence .stat', { has: page.locator('.stat-label', { hasText: label }) }).locator('.stat-value');
      await stat('seats in use').waitFor();
      expect(await stat('seats in use').textContent()).toBe('1 / 1');
      const task = page.locator('table.seat-tasks tbody tr');
      await task.first().waitFor();
      expect(await task.count()).toBe(1);
      expect(await task.first().locator('td').allTextContents()).toEqual(expect.arrayContaining(['bob', 'activate', 'failing', '1']));
      expect(await task.first().locator('.error-text').textContent()).toContain('licensed seats');
      await shoot('10-sync-seats');
      await page.getByRole('tab', { name: 'done' }).click();
      await expect.poll(() => page.locator('table.seat-tasks tbody tr').first().locator('td').allTextContents()).toEqual(expect.arrayContaining(['bob', 'deactivate', 'done']));
    });

    it('lists sync runs page by page: 50 first, the rest on "Load more", and one source alone', async () => {
      for (let n = 1; n <= 50; n += 1) {
        const renamed = await scim(app, 'PATCH', `/Users/${yunId}`, patchOp({ op: 'replace', path: 'displayName', value: `司马云 ${n}` }));
        expect(renamed.status).toBe(200);
      }
      const runs = page.locator('table.runs tbody tr');
      const panel = page.locator('.panel', { has: page.locator('table.runs') });
      await panel.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(() => panel.locator('h2').textContent()).toBe('Runs (50+), newest first');
      expect(await runs.count()).toBe(50);
      expect(await runs.first().textContent()).toContain(`PATCH /Users/${yunId}`);
      await panel.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => runs.count()).toBe(53);
      expect(await runs.last().textContent()).toContain('POST /Users');
      expect(await panel.getByRole('button', { name: 'Load more' }).count()).toBe(0);
      await panel.getByRole('tab', { name: 'LDAP' }).click();
      await expect.poll(() => runs.count()).toBe(2);
      expect(await runs.first().locator('.badge').textContent()).toBe('failed');
      expect(await runs.first().textContent()).toContain('nothing written');
    });

    it('shows each notification channel with its deliveries and last error, and never a secret', async () => {
      const admin = { authorization: `Bearer ${KEY}` };
      const put = (id: string, payload: Record<string, unknown>) => app.inject({ method: 'PUT', url: `/api/notification-channels/${id}`, headers: admin, payload });
      // One channel whose receiver is down (a port nothing listens on any more), one that answers; both get comments.
      receiver.state.status = 200;
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const downPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      expect((await put('ops-down', { kind: 'webhook', name: '运维告警', target: `http://127.0.0.1:${downPort}/hook`, subscriptions: ['comment.created'] })).statusCode).toBe(201);
      expect(
        (
          await put('rd-hook', {
            kind: 'webhook',
            name: '研发通知',
            target: `${receiver.url}?key=channel-key-supersecret`,
            secret: 'hook-signing-secret',
            subscriptions: ['comment.created'],
          })
        ).statusCode,
      ).toBe(201);
      const comment = { kind: 'comment', type: 'comment', action: 'create', fileId: 'plan-2024q3', userId: 'zhangsan', comment: { guid: 'c-channels', content: '渠道测试' } };
      const pushed = await app.inject({
        method: 'POST',
        url: '/events',
        headers: { 'content-type': 'application/json', 'x-platform-sdk-event': 'Comment', 'x-platform-token': tokenFor('zhangsan', config) },
        payload: comment,
      });
      expect(pushed.statusCode).toBe(200);
      const channelsWorker = new OutboxWorker(store(), {
        secret: SECRET,
        maxAttempts: 1,
        channels: new ChannelDispatcher(store().db, config.notify, { now: Date.now, log: { info() {}, warn() {} } }),
      });
      await expect
        .poll(async () => {
          await channelsWorker.runOnce();
          const listed = (await app.inject({ method: 'GET', url: '/api/notification-channels', headers: admin })).json() as {
            items: Array<{ id: string; deliveries: { pending: number; delivered: number; failed: number } }>;
          };
          return listed.items.map(({ id, deliveries }) => [id, deliveries.delivered, deliveries.failed]);
        })
        .toEqual([
          ['ops-down', 0, 1],
          ['rd-hook', 1, 0],
        ]);

      await goTo('Channels');
      const down = page.locator('tr[data-channel="ops-down"]');
      await down.waitFor();
      expect(await down.locator('.error-text').textContent()).toContain('ECONNREFUSED');
      expect(await down.locator('.badge').textContent()).toBe('1');
      const ok = page.locator('tr[data-channel="rd-hook"]');
      expect(await ok.textContent()).toContain('研发通知');
      expect(await ok.textContent()).toContain('signed');
      expect(await page.content()).not.toContain('supersecret');
      expect(await page.content()).not.toContain('hook-signing-secret');
      await down.click();
      const latest = page.locator('.panel', { hasText: 'Latest deliveries of ops-down' }).locator('tbody tr');
      await latest.first().waitFor();
      expect(await latest.first().locator('td').allTextContents()).toEqual(expect.arrayContaining(['the channel', 'failed', '1']));
      expect(await latest.first().locator('.error-text').textContent()).toContain('ECONNREFUSED');
      await shoot('11-channels');
    });

    it('fits a 1366×768 laptop: no page scrolls sideways and no card holds content wider than itself', async () => {
      await page.setViewportSize({ width: 1366, height: 768 });
      try {
        const pages = ['Overview', 'Directory', 'Explain access', 'Events', 'Notifications', 'Channels', 'Reminders & presence', 'Sync and seats'];
        const overflowing: string[] = [];
        for (const [index, title] of pages.entries()) {
          await page.getByRole('navigation').getByRole('link', { name: title }).click();
          await page.getByRole('heading', { level: 1 }).waitFor();
          await page.waitForLoadState('networkidle');
          if (title === 'Directory') {
            // The widest list: files with their grants, creator and "explain access".
            await page.getByRole('tab', { name: 'files' }).click();
            await page.getByLabel('Search the directory').fill('jdjh');
            await page.locator('table.results tbody tr').first().waitFor();
          }
          if (title === 'Events') {
            await page.locator('table.results tbody tr').first().click();
          }
          if (title === 'Overview') {
            const chart = await page.locator('.chart svg').boundingBox();
            const card = await page.locator('.panel', { has: page.locator('.chart') }).boundingBox();
            if (Math.round(chart!.width) !== Math.round(card!.width - 2 * 16 - 2)) overflowing.push(`Overview: the chart is ${chart!.width} px wide in a ${card!.width} px card`);
          }
          const found = await page.evaluate(() => {
            const doc = (
              globalThis as unknown as {
                document: {
                  documentElement: { scrollWidth: number; clientWidth: number };
                  querySelectorAll: (
                    s: string,
                  ) => ArrayLike<{ scrollWidth: number; clientWidth: number; className: string; querySelector: (s: string) => { textContent: string | null } | null }>;
                };
              }
            ).document;
            const problems: string[] = [];
            if (doc.documentElement.scrollWidth > doc.documentElement.clientWidth)
              problems.push(`page ${doc.documentElement.scrollWidth} px wide in ${doc.documentElement.clientWidth}`);
            for (const panel of Array.from(doc.querySelectorAll('.panel'))) {
              if (panel.scrollWidth > panel.clientWidth + 1)
                problems.push(`"${panel.querySelector('h2')?.textContent ?? panel.className}" holds ${panel.scrollWidth} px in ${panel.clientWidth}`);
            }
            return problems;
          });
          overflowing.push(...found.map((problem) => `${title}: ${problem}`));
          await page.screenshot({ path: join(shots, `laptop-${String(index + 1).padStart(2, '0')}-${title.toLowerCase().replace(/[^a-z]+/g, '-')}.png`), fullPage: true });
        }
        expect(overflowing).toEqual([]);
      } finally {
        await page.setViewportSize({ width: 1360, height: 900 });
      }
    });

    it('lists events newest first', async () => {
      await goTo('Events');
      await page.locator('table.results tbody tr').first().waitFor();
      const times = await page.locator('table.results tbody tr time').evaluateAll((cells) => cells.map((cell) => (cell as unknown as { dateTime: string }).dateTime));
      expect(times.length).toBeGreaterThan(1);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('names the creator of each file in the directory', async () => {
      await goTo('Directory');
      await page.getByRole('tab', { name: 'files' }).click();
      await page.getByLabel('Search the directory').fill('jdjh');
      await page.locator('table.results tbody tr').first().getByText('2024 Q3 季度计划').waitFor();
      const firstCreator = page.locator('table.results tbody tr').first().locator('td').nth(3);
      const file = (await app.inject({ method: 'GET', url: '/api/files/plan-2024q3', headers: { authorization: `Bearer ${KEY}` } })).json() as { creatorId: string };
      const creator = (await app.inject({ method: 'GET', url: `/api/users/${file.creatorId}`, headers: { authorization: `Bearer ${KEY}` } })).json() as { name: string };
      // The creator's name, the id beside it in grey.
      await expect.poll(async () => (await firstCreator.textContent())?.trim() ?? '').toBe(`${creator.name} ${file.creatorId}`);
    });

    it("lists a file's share links with the guest who took a token, and revokes one after a confirmation: the guest is refused", async () => {
      const admin = { authorization: `Bearer ${KEY}` };
      const link = (await app.inject({ method: 'POST', url: '/api/files/plan-2024q3/share-links', headers: admin, payload: { role: 'comment', maxUses: 5 } })).json() as {
        id: string;
        code: string;
      };
      const issued = await app.inject({ method: 'POST', url: `/share-links/${link.code}/token`, payload: { name: 'Vera 访客' } });
      expect(issued.statusCode).toBe(200);
      const guest = { 'x-platform-token': (issued.json() as { token: string }).token };
      expect((await app.inject({ method: 'GET', url: '/files/plan-2024q3', headers: guest })).statusCode).toBe(200);

      await page.setViewportSize({ width: 1366, height: 768 });
      try {
        await goTo('Directory');
        await page.getByRole('tab', { name: 'files' }).click();
        await page.getByLabel('Search the directory').fill('jdjh');
        await page.getByRole('button', { name: 'Share links of 2024 Q3 季度计划' }).click();
        const panel = page.locator('.panel', { has: page.getByRole('heading', { name: 'Share links of 2024 Q3 季度计划' }) });
        const row = panel.locator(`tr[data-link="${link.id}"]`);
        await row.waitFor();
        expect(await row.locator('td').nth(1).textContent()).toBe('comment');
        expect(await row.locator('td').nth(2).textContent()).toBe('active');
        expect(await row.locator('td').nth(3).textContent()).toBe('1 / 5');
        expect(await row.locator('ul.guests li').allTextContents()).toEqual([expect.stringMatching(/^Vera 访客 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)]);
        // The panel fits a laptop's width.
        expect(
          await panel.evaluate((element) => (element as unknown as { scrollWidth: number }).scrollWidth - (element as unknown as { clientWidth: number }).clientWidth),
        ).toBeLessThanOrEqual(1);
        await shoot('13-share-links');

        // A first click only asks; cancelling leaves the link alone.
        await row.getByRole('button', { name: `Revoke ${link.id}` }).click();
        await row.getByRole('button', { name: 'Cancel' }).click();
        expect((await app.inject({ method: 'GET', url: '/files/plan-2024q3', headers: guest })).statusCode).toBe(200);
        await row.getByRole('button', { name: `Revoke ${link.id}` }).click();
        await row.getByRole('button', { name: 'Confirm revoke' }).click();
        await expect(panel.getByRole('status').textContent()).resolves.toContain(`Link ${link.id} revoked`);
        await expect.poll(() => row.locator('td').nth(2).textContent()).toBe('revoked');
        expect(await row.getByRole('button', { name: `Revoke ${link.id}` }).count()).toBe(0);
      } finally {
        await page.setViewportSize({ width: 1360, height: 900 });
      }
      const refused = await app.inject({ method: 'GET', url: '/files/plan-2024q3', headers: guest });
      expect([refused.statusCode, (refused.json() as { error: { code: string } }).error.code]).toEqual([401, 'token_link_revoked']);
      await page.getByRole('button', { name: 'Close' }).first().click();
    });

    it('edits a user with If-Match: a change made meanwhile is not overwritten, the operator is told and can reload', async () => {
      const admin = { authorization: `Bearer ${KEY}` };
      const stored = async () => (await app.inject({ method: 'GET', url: '/api/users/zhangsan', headers: admin })).json() as Record<string, unknown>;
      const before = await stored();
      // Every page so far showed no error in the browser's console but the wrong key's 401 at sign-in.
      expect(consoleErrors.splice(0)).toEqual([expect.stringMatching(/status of 401/)]);
      await goTo('Directory');
      await page.getByRole('tab', { name: 'users' }).click();
      await page.getByLabel('Search the directory').fill('zs');
      await page.getByRole('button', { name: 'Edit 张三' }).click();
      const editor = page.locator('.panel', { has: page.getByRole('heading', { name: 'Edit user 张三' }) });
      await editor.getByLabel('e-mail').fill('zhangsan@new.example');
      await editor.getByRole('button', { name: 'Save' }).click();
      await expect(editor.getByRole('status').textContent()).resolves.toBe('Saved.');
      expect(await stored()).toMatchObject({ name: '张三', email: 'zhangsan@new.example' });

      // Behind the console's back, another administrator renames 张三 through the API.
      const meanwhile = await stored();
      expect((await app.inject({ method: 'PUT', url: '/api/users/zhangsan', headers: admin, payload: { ...meanwhile, name: '张三 (HR)' } })).statusCode).toBe(200);
      await editor.getByLabel('active').uncheck();
      await editor.getByRole('button', { name: 'Save' }).click();
      await expect(editor.getByRole('alert').textContent()).resolves.toContain('Someone else changed this user 张三 after you opened it');
      // Nothing of theirs was overwritten, and the deactivation was not written over it.
      expect(await stored()).toEqual({ ...meanwhile, name: '张三 (HR)' });
      expect(consoleErrors.splice(0)).toEqual([expect.stringMatching(/status of 412/)]);
      await shoot('12-directory-edit-conflict');
      await editor.getByRole('button', { name: 'Reload their version' }).click();
      await expect.poll(() => editor.getByLabel('name', { exact: true }).inputValue()).toBe('张三 (HR)');
      expect(await editor.getByLabel('active').isChecked()).toBe(true);
      expect(await editor.getByRole('alert').count()).toBe(0);

      // Saving after the reload works: 张三 gets their name and e-mail back.
      await editor.getByLabel('name', { exact: true }).fill(String(before.name));
      await editor.getByLabel('e-mail').fill(typeof before.email === 'string' ? before.email : '');
      await editor.getByRole('button', { name: 'Save' }).click();
      await expect(editor.getByRole('status').textContent()).resolves.toBe('Saved.');
      expect(await stored()).toMatchObject({ name: before.name, email: before.email });
      await editor.getByRole('button', { name: 'Close' }).click();
    });

    it('signs out: the sign-in form is back and the old session no longer opens /api', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Admin key').waitFor();
      expect(await page.context().cookies()).toEqual([]);
      const status = await page.evaluate(() => fetch('/api/events').then((response) => response.status));
      expect(status).toBe(401);
    });

    it('without a platform: no 401 or 503 in the browser console on any page, and the seat tasks say why none are queued', async () => {
      const bare = await buildApp({ config: makeTestConfig({ adminApiKey: KEY }), store: store(), logger: false, consoleDir });
      const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, locale: 'zh-CN' });
      try {
        await bare.listen({ port: 0, host: '127.0.0.1' });
        const address = bare.server.address();
        const other = await context.newPage();
        const errors: string[] = [];
        other.on('console', (message) => {
          if (message.type() === 'error') errors.push(message.text());
        });
        other.on('pageerror', (error) => errors.push(error.message));
        await other.goto(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/console/`);
        await other.getByLabel('Admin key').fill(KEY);
        await other.getByRole('button', { name: 'Sign in' }).click();
        await other.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        for (const title of ['Directory', 'Explain access', 'Events', 'Notifications', 'Channels', 'Reminders & presence', 'Sync and seats']) {
          await other.getByRole('navigation').getByRole('link', { name: title }).click();
          await other.getByRole('heading', { level: 1 }).waitFor();
          await other.waitForLoadState('networkidle');
        }
        const licence = other.locator('.panel', { has: other.getByRole('heading', { name: /^Licence/ }) });
        // The cards fill in after the page settles ("Loading…" first): wait for their text.
        await expect.poll(() => licence.locator('p.muted').first().textContent()).toContain('PLATFORM_API_URL is not set');
        const tasks = other.locator('.panel', { has: other.locator('table.seat-tasks') });
        await expect.poll(() => tasks.locator('p.no-platform').textContent()).toContain('directory changes queue no seat tasks');
        // Bob's tasks of the earlier test were queued with a platform: still listed, with the reason they wait.
        await expect.poll(() => tasks.locator('tbody tr').count()).toBeGreaterThan(0);
        expect(await tasks.locator('tbody tr').first().textContent()).toContain('once PLATFORM_API_URL is set');
        await other.screenshot({ path: join(shots, '13-sync-without-platform.png'), fullPage: true });
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        await bare.close();
      }
    });
  });
});
