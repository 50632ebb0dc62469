import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/stores.js';
import { dateMention, postEvent, tokenHeaders } from '../events/event-fixtures.js';
import { changeUser, notifyHarness } from './notify-fixtures.js';
import { startSmtpServer } from './smtp-receiver.js';

const WINDOW_MS = 2 * 60_000;

describeEachStore('e-mail notifications over a real SMTP server', (store) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let harness: Awaited<ReturnType<typeof notifyHarness>>;

  beforeAll(async () => {
    smtp = await startSmtpServer({ rejectRecipients: ['bob@example.com'] });
    harness = await notifyHarness(store(), { SMTP_URL: smtp.url, MAIL_FROM: '协作通知 <notify@oa.example.com>', NOTIFY_DIGEST_WINDOW: '2m' });
  });
  afterAll(async () => {
    await harness?.app.close();
    await smtp?.close();
  });

  const deliveries = async (query = '') => {
    const response = await harness.api().get(`/api/notification-channels/env-email/deliveries?limit=500${query}`);
    expect(response.statusCode).toBe(200);
    return (response.json() as { items: Array<{ recipient: string; status: string; attempts: number; lastError: string | null; type: string }> }).items;
  };

  it('a mention reaches the person after the digest window: Chinese subject, both parts, the link, over STARTTLS', async () => {
    await harness.comment('zhang', 'plan', '@李雷 请在周五前看完第三节', { userIds: ['lilei'] });
    expect(await harness.deliver()).toBe(0); // the mention waits in its digest window
    harness.clock.now += WINDOW_MS;
    await harness.deliver();

    const [mail, ...more] = smtp.to('lilei@example.com');
    expect(more).toEqual([]);
    expect(mail!.secure).toBe(true); // the server offered STARTTLS and the session was upgraded
    expect(mail!.from).toBe('notify@oa.example.com');
    const parsed = mail!.parsed;
    expect(parsed.subject).toBe('张三 在《季度计划》中提到了你');
    expect(parsed.from?.value).toEqual([{ address: 'notify@oa.example.com', name: '协作通知' }]);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value : []).toEqual([{ address: 'lilei@example.com', name: '李雷' }]);
    expect(parsed.messageId).toMatch(/^<[0-9a-f]{40}@collab-host>$/);
    expect(parsed.headers.get('x-collab-delivery')).toBe(parsed.messageId!.slice(1, 41));
    expect(parsed.headers.get('content-language')).toBe('zh-CN');
    expect(parsed.text).toContain('张三 在《季度计划》中提到了你');
    expect(parsed.text).toContain('“@李雷 请在周五前看完第三节”');
    expect(parsed.text).toContain('打开文档: https://oa.example.com/docs/plan');
    expect(parsed.html).toContain('<a href="https://oa.example.com/docs/plan">打开文档</a>');
    expect(parsed.html).toContain('@李雷 请在周五前看完第三节');
    // The author hears nothing of their own comment.
    expect(smtp.to('zhang@example.com')).toEqual([]);
    expect((await deliveries()).map((d) => [d.recipient, d.status])).toEqual([['lilei', 'delivered']]);
  });

  it('two mentions of one person within the window make one message; one after it makes another', async () => {
    await harness.comment('zhang', 'plan', '第一处 @韩梅梅', { userIds: ['hanmeimei'] });
    harness.clock.now += 30_000;
    await harness.comment('lilei', 'plan', '第二处 @韩梅梅', { userIds: ['hanmeimei'] });
    harness.clock.now += WINDOW_MS - 30_000;
    await harness.deliver();
    const [digest, ...rest] = smtp.to('hanmeimei@example.com');
    expect(rest).toEqual([]);
    expect(digest!.parsed.subject).toBe('你有 2 条新的提及');
    expect(digest!.parsed.text).toContain('张三 在《季度计划》中提到了你');
    expect(digest!.parsed.text).toContain('李雷 在《季度计划》中提到了你');
    expect(digest!.parsed.text).toContain('“第一处 @韩梅梅”');
    expect(digest!.parsed.text).toContain('“第二处 @韩梅梅”');

    harness.clock.now += 10_000;
    await harness.comment('zhang', 'plan', '第三处 @韩梅梅', { userIds: ['hanmeimei'] });
    harness.clock.now += WINDOW_MS;
    await harness.deliver();
    expect(smtp.to('hanmeimei@example.com').map((mail) => mail.parsed.subject)).toEqual(['你有 2 条新的提及', '张三 在《季度计划》中提到了你']);
  });

  it('writes in English to a person who prefers it, not to one who muted mentions, and tells a comment’s author of a reply', async () => {
    const english = await harness.api().put('/api/users/wang/notification-preferences', { muted: [], locale: 'en' });
    expect(english.statusCode).toBe(200);
    expect((await harness.api().put('/api/users/hanmeimei/notification-preferences', { muted: ['mention'], locale: null })).json()).toEqual({ muted: ['mention'], locale: null });
    const before = smtp.received.length;

    const question = await harness.comment('zhang', 'plan', '@王小明 @韩梅梅 这里的数字对吗？', { userIds: ['wang', 'hanmeimei'] });
    await harness.comment('lilei', 'plan', '数字已经更新', { replyTo: question });
    harness.clock.now += WINDOW_MS;
    await harness.deliver();

    const [toWang] = smtp.to('wang@example.com');
    expect(toWang!.parsed.subject).toBe('张三 mentioned you in "季度计划"');
    expect(toWang!.parsed.text).toContain('Open the document: https://oa.example.com/docs/plan');
    expect(toWang!.parsed.headers.get('content-language')).toBe('en');
    const [reply] = smtp.to('zhang@example.com');
    expect(reply!.parsed.subject).toBe('李雷 回复了你在《季度计划》中的评论');
    expect(reply!.parsed.text).toContain('“数字已经更新”');
    // Muted: no mail, and no delivery was even made.
    expect(smtp.received.slice(before).map((mail) => mail.to[0])).toEqual(expect.arrayContaining(['wang@example.com', 'zhang@example.com']));
    expect(smtp.received.slice(before).some((mail) => mail.to.includes('hanmeimei@example.com'))).toBe(false);
  });

  it('sends nothing to a deactivated person; a refused address fails at once without holding up the others', async () => {
    await changeUser(harness.app, 'carol', { active: false });
    await harness.comment('zhang', 'plan', '@Bob @李雷 @Carol 请确认', { userIds: ['bob', 'lilei', 'carol'] });
    harness.clock.now += WINDOW_MS;
    const lileiBefore = smtp.to('lilei@example.com').length;
    await harness.deliver();
    expect(smtp.to('lilei@example.com')).toHaveLength(lileiBefore + 1);
    expect(smtp.to('bob@example.com')).toEqual([]);
    const bob = (await deliveries()).filter((d) => d.recipient === 'bob');
    expect(bob).toEqual([expect.objectContaining({ status: 'failed', attempts: 1, lastError: expect.stringContaining('550') })]);
    expect((await deliveries()).some((d) => d.recipient === 'carol')).toBe(false);
    // The channel's listing shows its deliveries by status and its last error (the console reads it).
    const channel = (await harness.api().get('/api/notification-channels/env-email')).json() as { target: string; deliveries: { failed: number; lastError: string } };
    expect(channel.deliveries.failed).toBe(1);
    expect(channel.deliveries.lastError).toContain('mailbox unavailable');
    expect(channel.target).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+\/…$/);
  });

  it('a reminder due reaches each person reminded, at once', async () => {
    const remindAt = new Date(harness.clock.now + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const create = dateMention('plan', 'zhang', 'create', { id: `r-${Date.now()}`, content: '提交季度总结', remindUserIds: ['lilei', 'zhang'], remindAt });
    expect((await postEvent(harness.app, 'DateMention', create, tokenHeaders('zhang'))).statusCode).toBe(200);
    await harness.settle();
    harness.clock.now += 60_000;
    expect(await harness.reminders.runOnce()).toBe(1);
    await harness.deliver();
    const subjects = (address: string) => smtp.to(address).map((mail) => mail.parsed.subject);
    expect(subjects('lilei@example.com')).toContain('提醒：提交季度总结');
    // A reminder one set for oneself still reminds.
    expect(subjects('zhang@example.com')).toContain('提醒：提交季度总结');
    const mail = smtp.to('lilei@example.com').find((m) => m.parsed.subject === '提醒：提交季度总结')!;
    expect(mail.parsed.text).toContain('《季度计划》中的提醒');
    expect(mail.parsed.text).toContain('https://oa.example.com/docs/plan');
  });
});

describeEachStore('e-mail notifications without a digest window', (store) => {
  it('sends each mention alone, under its own key, even when several are sent in one batch', async () => {
    const smtp = await startSmtpServer();
    const harness = await notifyHarness(store(), { SMTP_URL: smtp.url, MAIL_FROM: 'notify@oa.example.com', NOTIFY_DIGEST_WINDOW: '0' });
    try {
      // Both mentions are due at once and taken in one batch: with NOTIFY_DIGEST_WINDOW=0 each is its own
      // message, so a crash that splits the batch cannot send one under two keys.
      await harness.comment('zhang', 'plan', '第一处 @李雷', { userIds: ['lilei'] });
      await harness.comment('zhang', 'plan', '第二处 @李雷', { userIds: ['lilei'] });
      await harness.deliver();
      const mails = smtp.to('lilei@example.com');
      expect(mails.map((mail) => mail.parsed.text?.includes('第一处') !== mail.parsed.text?.includes('第二处'))).toEqual([true, true]);
      expect(new Set(mails.map((mail) => mail.parsed.headers.get('x-collab-delivery'))).size).toBe(2);
    } finally {
      await harness.app.close();
      await smtp.close();
    }
  });
});
