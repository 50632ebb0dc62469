import { sql } from 'kysely';
import type { OpenDatabase } from './database.js';
import { dialectOf, type PoolSizes } from '../dialect/dialect.js';
import type { Db } from '../schema/schema.js';

/** Rows in the directory tables. */
export interface DirectorySizes {
  teams: number;
  departments: number;
  activeUsers: number;
  deactivatedUsers: number;
  files: number;
}

/** The notification outbox now. */
export interface OutboxState {
  /** Deliveries still to be made (one per notification and receiver). */
  pendingDeliveries: number;
  /** Creation time (ms since the epoch) of the oldest notification still pending; null when none is. */
  oldestPendingCreatedMs: number | null;
}

/** Deliveries to one receiver in one status, and the attempts they took. */
export interface ReceiverDeliveries {
  receiver: string;
  /** pending | delivered | failed */
  status: string;
  deliveries: number;
  attempts: number;
}

/** Reminders whose time has come but that have not fired. */
export interface ReminderBacklog {
  /** Scheduled reminders at or past their time. */
  due: number;
  /** Of those, the ones more than `lateAfterMs` past it. */
  late: number;
}

export type { PoolSizes };

/** What operators watch, read from the store (metrics and readiness); every read is one cheap query. */
export interface OperationsStats {
  /** One round trip to the database; rejects when it cannot be reached. */
  ping(): Promise<void>;
  /** Rows in the directory tables, users split by active. */
  directorySizes(): Promise<DirectorySizes>;
  /** Pending deliveries and the age of the oldest pending notification. */
  outbox(): Promise<OutboxState>;
  /** Deliveries and attempts per receiver and status. */
  deliveriesByReceiver(): Promise<ReceiverDeliveries[]>;
  /** Scheduled reminders due at `nowMs`, and those late by more than `lateAfterMs`. */
  reminderBacklog(nowMs: number, lateAfterMs: number): Promise<ReminderBacklog>;
  /** The connection pool's sizes; undefined for SQLite, which has one connection and no pool. */
  poolSizes(): PoolSizes | undefined;
}

export function operationsStats(store: OpenDatabase): OperationsStats {
  const db: Db = store.db;
  const dialect = dialectOf(store.db);
  const count = (table: 'teams' | 'departments' | 'files') =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.n));
  return {
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    async directorySizes() {
      const [teams, departments, files, users] = await Promise.all([
        count('teams'),
        count('departments'),
        count('files'),
        db
          .selectFrom('users')
          .select(['active', (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy('active')
          .execute(),
      ]);
      const users_ = (active: boolean) => users.filter((row) => (Number(row.active) === 1) === active).reduce((sum, row) => sum + Number(row.n), 0);
      return { teams, departments, activeUsers: users_(true), deactivatedUsers: users_(false), files };
    },
    async outbox() {
      const [pending, oldest] = await Promise.all([
        db
          .selectFrom('notification_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow(),
        db.selectFrom('notifications').select('created_at').where('status', '=', 'pending').orderBy('seq').limit(1).executeTakeFirst(),
      ]);
      const created = oldest ? Date.parse(oldest.created_at) : Number.NaN;
      return { pendingDeliveries: Number(pending.n), oldestPendingCreatedMs: Number.isNaN(created) ? null : created };
    },
    async deliveriesByReceiver() {
      const rows = await db
        .selectFrom('notification_deliveries')
        .select(['receiver', 'status', (eb) => eb.fn.countAll<number>().as('deliveries'), (eb) => eb.fn.sum<number>('attempts').as('attempts')])
        .groupBy(['receiver', 'status'])
        .orderBy('receiver')
        .orderBy('status')
        .execute();
      return rows.map((row) => ({ receiver: row.receiver, status: row.status, deliveries: Number(row.deliveries), attempts: Number(row.attempts ?? 0) }));
    },
    async reminderBacklog(nowMs, lateAfterMs) {
      const row = await db
        .selectFrom('reminders')
        .select([
          (eb) => eb.fn.countAll<number>().as('due'),
          (eb) =>
            eb.fn
              .sum<number>(
                eb
                  .case()
                  .when('due_at_ms', '<', nowMs - lateAfterMs)
                  .then(1)
                  .else(0)
                  .end(),
              )
              .as('late'),
        ])
        .where('status', '=', 'scheduled')
        .where('due_at_ms', '<=', nowMs)
        .executeTakeFirstOrThrow();
      return { due: Number(row.due), late: Number(row.late ?? 0) };
    },
    poolSizes() {
      return dialect.poolSizes(store);
    },
  };
}
