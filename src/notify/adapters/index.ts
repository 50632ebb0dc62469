import type { ChannelKind } from '../channel.js';
import type { ChannelAdapter } from './adapter.js';
import { dingtalkAdapter } from './dingtalk.js';
import { emailAdapter } from './email.js';
import { feishuAdapter } from './feishu.js';
import { slackAdapter } from './slack.js';
import { webhookAdapter } from './webhook.js';
import { wecomAdapter } from './wecom.js';

/** Each channel kind's adapter. */
export const ADAPTERS: Record<ChannelKind, ChannelAdapter> = {
  email: emailAdapter,
  wecom: wecomAdapter,
  dingtalk: dingtalkAdapter,
  feishu: feishuAdapter,
  slack: slackAdapter,
  webhook: webhookAdapter,
};
