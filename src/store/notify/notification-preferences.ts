import { dialectOf } from '../dialect/dialect.js';
import { storableText } from '../statements/row-insert.js';
import type { Db } from '../schema/schema.js';

/** A person's notification preferences: the personal notice kinds they muted, and their language. */
export interface NotificationPreferences {
  muted: string[];
  /** null: the directory's language (else the default). */
  locale: string | null;
}

export const NO_PREFERENCES: NotificationPreferences = Object.freeze({ muted: [], locale: null }) as NotificationPreferences;

export const notificationPreferences = {
  /** The preferences of each user that set any. */
  async of(db: Db, userIds: readonly string[]): Promise<Map<string, NotificationPreferences>> {
    if (userIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('notification_preferences')
      .select(['user_id', 'muted', 'locale'])
      .where('user_id', 'in', [...new Set(userIds.map((id) => storableText(id)))])
      .execute();
    return new Map(rows.map((row) => [row.user_id, { muted: JSON.parse(row.muted) as string[], locale: row.locale }]));
  },

  async put(db: Db, userId: string, preferences: NotificationPreferences, now: string): Promise<void> {
    const values = { muted: JSON.stringify(preferences.muted), locale: preferences.locale, updated_at: now };
    await dialectOf(db)
      .conflicts.insertOrUpdate(db.insertInto('notification_preferences').values({ user_id: userId, ...values }), ['user_id'], Object.keys(values))
      .execute();
  },
};
