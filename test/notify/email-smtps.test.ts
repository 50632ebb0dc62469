import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/stores.js';
import { dateMention, postEvent, tokenHeaders } from '../events/event-fixtures.js';
import { notifyHarness } from './notify-fixtures.js';
import { startSmtpServer } from './smtp-receiver.js';

describeEachStore('e-mail notifications over smtps:// (TLS from the first byte)', (store) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let harness: Awaited<ReturnType<typeof notifyHarness>>;

  beforeAll(async () => {
    smtp = await startSmtpServer({ secure: true });
    harness = await notifyHarness(store(), { SMTP_URL: smtp.url, MAIL_FROM: 'notify@oa.example.com' });
  });
  afterAll(async () => {
    await harness?.app.close();
    await smtp?.close();
  });

  it('a reminder due reaches the person over an smtps:// server', async () => {
    expect(smtp.url).toMatch(/^smtps:\/\//);
    const remindAt = new Date(harness.clock.now + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const create = dateMention('plan', 'zhang', 'create', { id: `r-tls-${Date.now()}`, content: 'Submit the summary', remindUserIds: ['lilei'], remindAt });
    expect((await postEvent(harness.app, 'DateMention', create, tokenHeaders('zhang'))).statusCode).toBe(200);
    await harness.settle();
    harness.clock.now += 60_000;
    expect(await harness.reminders.runOnce()).toBe(1);
    await harness.deliver();

    const [mail, ...more] = smtp.to('lilei@example.com');
    expect(more).toEqual([]);
    expect(mail!.secure).toBe(true);
    expect(mail!.parsed.subject).toBe('提醒：Submit the summary');
    expect(mail!.parsed.text).toContain('https://oa.example.com/docs/plan');
    const deliveries = (await harness.api().get('/api/notification-channels/env-email/deliveries?limit=50')).json() as { items: Array<{ recipient: string; status: string }> };
    expect(deliveries.items.map((d) => [d.recipient, d.status])).toEqual([['lilei', 'delivered']]);
  });
});
