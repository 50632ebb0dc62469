import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/stores.js';
import { postEvent, signedHeaders, systemCallbackError } from '../events/event-fixtures.js';
import { startBotReceivers } from './bot-receivers.js';
import { changeUser, notifyHarness } from './notify-fixtures.js';

const SECRETS = {
  wecomKey: 'wecom-key-8d1f2e',
  dingtalkToken: 'dingtalk-token-77a1',
  dingtalkSecret: 'SECdingtalk-signing-secret-0123',
  feishuHook: 'feishu-hook-5c3b',
  feishuSecret: 'feishu-signing-secret-4567',
  slackPath: 'T0001/B0002/slack-path-secret',
};
const WINDOW_MS = 60_000;

interface Delivery {
  notificationId: string;
  recipient: string | null;
  status: string;
  attempts: number;
  lastError: string | null;
  type: string;
}

describeEachStore('group bots: WeCom, DingTalk, Feishu, Slack', (store) => {
  let bots: Awaited<ReturnType<typeof startBotReceivers>>;
  let harness: Awaited<ReturnType<typeof notifyHarness>>;

  const channel = (id: string, body: Record<string, unknown>) => harness.api().put(`/api/notification-channels/${id}`, body);
  const deliveries = async (id: string): Promise<Delivery[]> =>
    ((await harness.api().get(`/api/notification-channels/${id}/deliveries?limit=500`)).json() as { items: Delivery[] }).items;
  /** Delivers in rounds, each a retry's back-off later on the workers' clock, until nothing is left to try. */
  const deliverAll = async () => {
    for (let round = 0; round < 6; round += 1) {
      await harness.deliver();
      harness.clock.now += 120_000;
    }
  };

  beforeAll(async () => {
    bots = await startBotReceivers(SECRETS);
    harness = await notifyHarness(store(), { NOTIFY_DIGEST_WINDOW: '1m' }, { maxAttempts: 3 });
    await changeUser(harness.app, 'lilei', { im: { wecom: 'LiLei', dingtalk: 'dt-lilei', feishu: 'ou_lilei', slack: 'U0LILEI' }, locale: 'zh-CN' });
    const common = { teamId: 'acme', personal: true };
    expect((await channel('acme-wecom', { kind: 'wecom', name: '研发群', target: bots.urls.wecom, subscriptions: ['callback.failed'], ...common })).statusCode).toBe(201);
    expect((await channel('acme-dingtalk', { kind: 'dingtalk', name: '钉钉研发群', target: bots.urls.dingtalk, secret: SECRETS.dingtalkSecret, ...common })).statusCode).toBe(201);
    expect((await channel('acme-feishu', { kind: 'feishu', name: '飞书研发群', target: bots.urls.feishu, secret: SECRETS.feishuSecret, ...common })).statusCode).toBe(201);
    expect((await channel('acme-slack', { kind: 'slack', name: '#rd', target: bots.urls.slack, ...common })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await harness?.app.close();
    await bots?.close();
  });

  it('lists channels without their secrets, keeps a secret a PUT leaves out, and refuses bad channels', async () => {
    const listed = await harness.api().get('/api/notification-channels');
    expect(listed.statusCode).toBe(200);
    for (const secret of Object.values(SECRETS)) expect(listed.body).not.toContain(secret);
    const items = (listed.json() as { items: Array<{ id: string; target: string; secretSet: boolean; source: string }> }).items;
    expect(items.map(({ id, target, secretSet, source }) => ({ id, target, secretSet, source }))).toEqual([
      { id: 'acme-dingtalk', target: `${bots.base}/…`, secretSet: true, source: 'api' },
      { id: 'acme-feishu', target: `${bots.base}/…`, secretSet: true, source: 'api' },
      { id: 'acme-slack', target: `${bots.base}/…`, secretSet: false, source: 'api' },
      { id: 'acme-wecom', target: `${bots.base}/…`, secretSet: false, source: 'api' },
    ]);
    // Renamed without target or secret: both kept (the signature tests below need the secret).
    const renamed = await channel('acme-dingtalk', { kind: 'dingtalk', name: '钉钉 · 研发', teamId: 'acme', personal: true });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: '钉钉 · 研发', secretSet: true });

    const refused = async (id: string, body: Record<string, unknown>) => {
      const response = await channel(id, body);
      return [response.statusCode, (response.json() as { error: { code: string } }).error.code];
    };
    expect(await refused('x', { kind: 'slack', name: 'x' })).toEqual([400, 'target_required']);
    expect(await refused('x', { kind: 'email', name: 'x', target: 'https://mail.example.com', from: 'a@b.c' })).toEqual([400, 'invalid_target']);
    expect(await refused('x', { kind: 'wecom', name: 'x', target: bots.urls.wecom, teamId: 'nope' })).toEqual([400, 'team_not_found']);
    expect(await refused('x', { kind: 'wecom', name: 'x', target: bots.urls.wecom, subscriptions: ['everything'] })).toEqual([400, 'invalid_request']);
    expect(await refused('bad id!', { kind: 'wecom', name: 'x', target: bots.urls.wecom })).toEqual([400, 'invalid_request']);
    expect((await harness.api().get('/api/notification-channels/x')).statusCode).toBe(404);
    expect((await harness.api().get('/api/users/nobody/notification-preferences')).statusCode).toBe(404);
  });

  it('@-mentions the person in every bot with the vendor’s documented payload, signed where the bot signs', async () => {
    await harness.comment('zhang', 'plan', '@李雷 预算表 [见附件] 请更新', { userIds: ['lilei'] });
    harness.clock.now += WINDOW_MS;
    await harness.deliver();

    const [wecom] = bots.of('wecom');
    expect(wecom).toMatchObject({ accepted: true, body: { msgtype: 'markdown' } });
    const content = (wecom!.body.markdown as { content: string }).content;
    expect(content).toContain('**张三 在《季度计划》中提到了你**');
    expect(content).toContain('> @李雷 预算表 \\[见附件\\] 请更新');
    expect(content).toContain('[打开文档](https://oa.example.com/docs/plan)');
    expect(content).toContain('<@LiLei>');

    const [dingtalk] = bots.of('dingtalk');
    expect(dingtalk!.accepted).toBe(true);
    expect(dingtalk!.url.searchParams.get('timestamp')).toMatch(/^\d{13}$/);
    expect(dingtalk!.body).toMatchObject({ msgtype: 'markdown', markdown: { title: '张三 在《季度计划》中提到了你' }, at: { atUserIds: ['dt-lilei'], isAtAll: false } });
    expect((dingtalk!.body.markdown as { text: string }).text).toContain('@dt-lilei');

    const [feishu] = bots.of('feishu');
    expect(feishu!.accepted).toBe(true);
    expect(feishu!.body.timestamp).toMatch(/^\d{10}$/);
    expect(feishu!.body).toMatchObject({ msg_type: 'post', content: { post: { zh_cn: { title: '张三 在《季度计划》中提到了你' } } } });
    const elements = (feishu!.body.content as { post: { zh_cn: { content: unknown[][] } } }).post.zh_cn.content.flat();
    expect(elements).toEqual(
      expect.arrayContaining([
        { tag: 'text', text: '“@李雷 预算表 [见附件] 请更新”' },
        { tag: 'a', text: '打开文档', href: 'https://oa.example.com/docs/plan' },
        { tag: 'at', user_id: 'ou_lilei' },
      ]),
    );

    const [slack] = bots.of('slack');
    expect(slack!.accepted).toBe(true);
    const text = slack!.body.text as string;
    expect(text).toContain('*张三 在《季度计划》中提到了你*');
    expect(text).toContain('<https://oa.example.com/docs/plan|打开文档>');
    expect(text).toContain('<@U0LILEI>');
    expect(slack!.body.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text } }]);

    // People without an IM identity in a bot's IM are not @-ed there (zhang has none): only lilei was.
    expect(bots.received).toHaveLength(4);
  });

  it('posts what a team channel is subscribed to: a callback failure, redacted, in the channel’s language', async () => {
    const before = bots.of('wecom').length;
    const push = await postEvent(harness.app, 'System', systemCallbackError('https://oa.example.com/callback?token=abc123', 502), signedHeaders('plan'));
    expect(push.statusCode).toBe(200);
    await harness.settle();
    await harness.deliver();
    const posted = bots.of('wecom').slice(before);
    expect(posted).toHaveLength(1);
    const content = (posted[0]!.body.markdown as { content: string }).content;
    expect(content).toContain('回调失败');
    expect(content).toContain('502');
    expect(content).not.toContain('abc123');
    // Only the subscribed channel got it.
    expect(bots.of('slack')).toHaveLength(1);
  });

  it('a wrong signing secret is refused by the vendor: the delivery fails with its error and is dead-lettered; re-send after the fix delivers', async () => {
    expect((await channel('acme-dingtalk', { kind: 'dingtalk', name: '钉钉', teamId: 'acme', personal: true, secret: 'SECwrong' })).statusCode).toBe(200);
    expect((await channel('acme-feishu', { kind: 'feishu', name: '飞书', teamId: 'acme', personal: true, secret: 'wrong' })).statusCode).toBe(200);
    const counts = { dingtalk: bots.of('dingtalk').length, feishu: bots.of('feishu').length, wecom: bots.of('wecom').length };
    await harness.comment('zhang', 'plan', '@李雷 再看一下', { userIds: ['lilei'] });
    harness.clock.now += WINDOW_MS;
    await deliverAll();

    const refusedDingtalk = bots.of('dingtalk').slice(counts.dingtalk);
    expect(refusedDingtalk.map((r) => [r.accepted, r.answer])).toEqual(Array(3).fill([false, JSON.stringify({ errcode: 310000, errmsg: 'sign not match' })]));
    expect(
      bots
        .of('feishu')
        .slice(counts.feishu)
        .every((r) => !r.accepted && r.answer.includes('19021')),
    ).toBe(true);
    // The other bots were not held up: delivered once.
    expect(
      bots
        .of('wecom')
        .slice(counts.wecom)
        .map((r) => r.accepted),
    ).toEqual([true]);

    const [failed] = (await deliveries('acme-dingtalk')).filter((d) => d.status !== 'delivered');
    expect(failed).toMatchObject({ recipient: 'lilei', status: 'failed', attempts: 3, lastError: 'errcode 310000: sign not match' });
    const [feishuFailed] = (await deliveries('acme-feishu')).filter((d) => d.status !== 'delivered');
    expect(feishuFailed!.lastError).toContain('code 19021');

    expect((await channel('acme-dingtalk', { kind: 'dingtalk', name: '钉钉', teamId: 'acme', personal: true, secret: SECRETS.dingtalkSecret })).statusCode).toBe(200);
    expect((await channel('acme-feishu', { kind: 'feishu', name: '飞书', teamId: 'acme', personal: true, secret: SECRETS.feishuSecret })).statusCode).toBe(200);
    expect((await harness.api().post(`/api/notifications/${failed!.notificationId}/resend`)).statusCode).toBe(200);
    await deliverAll();
    expect(bots.of('dingtalk').at(-1)!.accepted).toBe(true);
    expect(bots.of('feishu').at(-1)!.accepted).toBe(true);
    expect((await deliveries('acme-dingtalk')).every((d) => d.status === 'delivered')).toBe(true);
  });

  it('a bot that is down is retried with back-off and dead-lettered while the others deliver; re-send delivers', async () => {
    bots.state.status.slack = 503;
    const before = bots.of('slack').length;
    const wecomBefore = bots.of('wecom').length;
    await harness.comment('zhang', 'plan', '@李雷 第一件事', { userIds: ['lilei'] });
    await harness.comment('zhang', 'secret', '@李雷 第二件事', { userIds: ['lilei'] });
    harness.clock.now += WINDOW_MS;
    await deliverAll();
    // Both mentions went as one digest per attempt: three attempts, then failed.
    const attempts = bots.of('slack').slice(before);
    expect(attempts).toHaveLength(3);
    expect(attempts[0]!.body.text).toContain('你有 2 条新的提及');
    const failed = (await deliveries('acme-slack')).filter((d) => d.status === 'failed');
    expect(failed).toHaveLength(2);
    expect(failed.every((d) => d.attempts === 3 && d.lastError === 'HTTP 503: ok')).toBe(true);
    expect(
      bots
        .of('wecom')
        .slice(wecomBefore)
        .map((r) => r.accepted),
    ).toEqual([true]);

    bots.state.status.slack = undefined;
    for (const delivery of failed) expect((await harness.api().post(`/api/notifications/${delivery.notificationId}/resend`)).statusCode).toBe(200);
    await deliverAll();
    expect(bots.of('slack').at(-1)!.accepted).toBe(true);
    expect((await deliveries('acme-slack')).every((d) => d.status === 'delivered')).toBe(true);
  });
});
