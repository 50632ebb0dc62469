import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/stores.js';
import { notifyHarness } from './notify-fixtures.js';
import { startSmtpServer } from './smtp-receiver.js';

describeEachStore('a file shared with a person through the management API reaches them', (store) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let harness: Awaited<ReturnType<typeof notifyHarness>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    harness = await notifyHarness(store(), { SMTP_URL: smtp.url, MAIL_FROM: 'notify@oa.example.com' });
  });
  afterAll(async () => {
    await harness?.app.close();
    await smtp?.close();
  });

  /** Sends what is due: the grant's notice is due when it was made (the route's own clock). */
  const deliverNow = async () => {
    harness.clock.now = Math.max(harness.clock.now, Date.now() + 1000);
    return harness.deliver();
  };
  const subjects = (address: string) => smtp.to(address).map((mail) => mail.parsed.subject);

  it('a new grant to a person sends them one notice naming who shared it, with the link', async () => {
    const grant = await harness.api().put('/api/files/plan/grants/user:wang', { role: 'viewer', sharedBy: 'zhang' });
    expect(grant.statusCode, grant.body).toBe(200);
    expect(grant.json()).toEqual({ fileId: 'plan', principal: 'user:wang', role: 'viewer' });
    await deliverNow();
    expect(subjects('wang@example.com')).toEqual(['张三 与你共享了《季度计划》']);
    const mail = smtp.to('wang@example.com')[0]!;
    expect(mail.parsed.text).toContain('https://oa.example.com/docs/plan');
  });

  it('a role changed on an existing grant, a department grant and a refused grant notify no one', async () => {
    // lilei holds a grant on plan already (the fixture's): a new role is no new share.
    const before = smtp.to('lilei@example.com').length;
    expect((await harness.api().put('/api/files/plan/grants/user:lilei', { role: 'commenter', sharedBy: 'zhang' })).statusCode).toBe(200);
    const refused = await harness.api().put('/api/files/plan/grants/user:hanmeimei', { role: 'viewer', sharedBy: 'zhang', note: 'x' });
    expect(refused.statusCode).toBe(400);
    const departments = (await harness.api().get('/api/departments?limit=1')).json() as { items: Array<{ id: string }> };
    expect((await harness.api().put(`/api/files/plan/grants/department:${departments.items[0]!.id}`, { role: 'viewer' })).statusCode).toBe(200);
    await deliverNow();
    expect(smtp.to('lilei@example.com')).toHaveLength(before);
    expect(smtp.to('hanmeimei@example.com')).toEqual([]);
  });

  it('without sharedBy the notice says someone shared it; sharing again after an unshare notifies again', async () => {
    expect((await harness.api().put('/api/files/plan/grants/user:hanmeimei', { role: 'commenter' })).statusCode).toBe(200);
    expect((await harness.api().del('/api/files/plan/grants/user:hanmeimei')).statusCode).toBe(204);
    expect((await harness.api().put('/api/files/plan/grants/user:hanmeimei', { role: 'viewer', sharedBy: 'lilei' })).statusCode).toBe(200);
    await deliverNow();
    expect(subjects('hanmeimei@example.com').sort()).toEqual(['有人 与你共享了《季度计划》', '李雷 与你共享了《季度计划》'].sort());
  });
});
