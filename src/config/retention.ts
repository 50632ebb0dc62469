import { parseDurationMs, parseInteger, type EnvGetter } from './values.js';

/** How long each kind of row is kept (docs/operations.md, "Retention"); 0 keeps that kind forever. */
export interface RetentionConfig {
  /** EVENTS_RETENTION_DAYS (default 90): the event log, except events still pending or about a scheduled reminder. */
  readonly eventsDays: number;
  /** NOTIFICATIONS_RETENTION_DAYS (default 30): notifications and their deliveries, except those still pending. */
  readonly notificationsDays: number;
  /** ACTIVITY_RETENTION_DAYS (default 90): who opened, edited, commented (the recent lists read it). */
  readonly activityDays: number;
  /** PRESENCE_RETENTION_HOURS (default 24): a presence row unchanged this long is stale (a missed leave). */
  readonly presenceHours: number;
  /** AUDIT_RETENTION_DAYS (default 365): the audit log. */
  readonly auditDays: number;
  /** RETENTION_INTERVAL (default 1h): how often `serve` prunes; 0 turns the background pruning off. */
  readonly intervalMs: number;
}

const MAX_DAYS = 36_500;

export function retentionConfig(get: EnvGetter): RetentionConfig {
  const days = (name: string, fallback: number) => parseInteger(name, get(name), fallback, 0, MAX_DAYS);
  return Object.freeze({
    eventsDays: days('EVENTS_RETENTION_DAYS', 90),
    notificationsDays: days('NOTIFICATIONS_RETENTION_DAYS', 30),
    activityDays: days('ACTIVITY_RETENTION_DAYS', 90),
    presenceHours: parseInteger('PRESENCE_RETENTION_HOURS', get('PRESENCE_RETENTION_HOURS'), 24, 0, MAX_DAYS * 24),
    auditDays: days('AUDIT_RETENTION_DAYS', 365),
    intervalMs: parseDurationMs('RETENTION_INTERVAL', get('RETENTION_INTERVAL'), 3_600_000, 0),
  });
}
