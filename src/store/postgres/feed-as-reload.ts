import { feedTriggers } from '../change-feed/feed-triggers.js';
import { DIRECTORY_CHANNEL } from '../schema/directory-tracking.js';
import { quoteIdentifier } from '../statements/bulk-table.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

const CLEAR_FEED = new Statement(`DELETE FROM directory_changes`);
// The sequence: the marker's id is above every id handed out; its xid is this transaction's (the default).
const RELOAD_MARKER = new Statement(`INSERT INTO directory_changes (subject, key) VALUES ('all', '')`);
const WAKE_INSTANCES = new Statement(`SELECT pg_notify('${DIRECTORY_CHANNEL}', current_schema())`);

/**
 * PostgreSQL: the feed triggers are statement triggers, but over a rewrite they still collect every key
 * of every statement into the feed. They are disabled for the rewrite (ALTER TABLE … DISABLE TRIGGER:
 * readers go on reading; writers of these tables wait, as they would for the rewrite's row locks) and
 * enabled again in the same transaction, so no other session ever sees them off.
 */
export async function withFeedAsReload<T>(db: Db, tables: readonly string[], work: () => Promise<T>): Promise<T> {
  const alter = (action: 'DISABLE' | 'ENABLE') =>
    tables.map(
      (table) =>
        new Statement(
          `ALTER TABLE ${quoteIdentifier(table)} ${feedTriggers(table)
            .map((name) => `${action} TRIGGER ${quoteIdentifier(name)}`)
            .join(', ')}`,
        ),
    );
  for (const statement of alter('DISABLE')) await statement.run(db, []);
  const result = await work();
  for (const statement of alter('ENABLE')) await statement.run(db, []);
  await CLEAR_FEED.run(db, []);
  await RELOAD_MARKER.run(db, []);
  await WAKE_INSTANCES.run(db, []);
  return result;
}
