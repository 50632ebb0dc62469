/**
 * The shapes the channel listings answer (docs/notifications.md): plain types that import nothing but
 * other plain types, shared by the store, the routes and the console (a browser build).
 */
import type { ChannelKind, Locale } from './channel.js';

/** A receiver's deliveries by status, and its last error with when its notification was made. */
export interface ReceiverSummary {
  pending: number;
  delivered: number;
  failed: number;
  lastError: string | null;
  lastErrorAt: string | null;
}

/** One delivery of a channel, newest first in its listing. */
export interface ChannelDelivery {
  notificationId: string;
  type: string;
  occurredAt: string;
  /** The user a personal notice is for; null: the channel as a whole. */
  recipient: string | null;
  status: string;
  attempts: number;
  lastError: string | null;
  deliveredAt: string | null;
}

/** A channel as the management API and the console show it: secrets never, the target as its origin only. */
export interface ChannelView {
  id: string;
  kind: ChannelKind;
  name: string;
  teamId: string | null;
  /** `https://oapi.dingtalk.com/…`, `smtp://mail.example.com:587`: where it goes, without its credentials. */
  target: string;
  secretSet: boolean;
  subscriptions: string[];
  personal: boolean;
  locale: Locale;
  from: string | null;
  ratePerMinute: number | null;
  enabled: boolean;
  source: 'env' | 'api';
  createdAt: string | null;
  updatedAt: string | null;
  deliveries: ReceiverSummary;
}
