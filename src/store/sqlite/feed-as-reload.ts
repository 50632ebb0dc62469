import { feedTriggers } from '../change-feed/feed-triggers.js';
import { quoteIdentifier } from '../statements/bulk-table.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

const TRIGGERS = new Statement(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (SELECT value FROM json_each($1))`);
const CLEAR_FEED = new Statement(`DELETE FROM directory_changes`);
// AUTOINCREMENT: the marker's id is above every id a reader has seen.
const RELOAD_MARKER = new Statement(`INSERT INTO directory_changes (subject, key) VALUES ('all', '')`);
const RAISE_VERSIONS = new Statement(`UPDATE directory_versions SET version = version + 1`);

/** The version triggers of migration 070 on a table (one UPDATE of a version row per written row). */
function versionTriggers(table: string): string[] {
  return ['insert', 'update', 'delete'].map((operation) => `${table}_version_${operation}`);
}

/**
 * SQLite: the feed triggers (and the directory version triggers, migration 070) run once per row; they
 * are dropped for the rewrite and created again after it (SQLite's DDL is transactional; readers on other
 * connections keep the last committed state). Every directory version then moves once.
 */
export async function withFeedAsReload<T>(db: Db, tables: readonly string[], work: () => Promise<T>): Promise<T> {
  const names = [...tables, 'department_ancestors'].flatMap((table) => [...feedTriggers(table), ...versionTriggers(table)]);
  const triggers = await TRIGGERS.run<{ name: string; sql: string }>(db, [JSON.stringify(names)]);
  for (const trigger of triggers) await new Statement(`DROP TRIGGER ${quoteIdentifier(trigger.name)}`).run(db, []);
  const result = await work();
  for (const trigger of triggers) await new Statement(trigger.sql).run(db, []);
  await CLEAR_FEED.run(db, []);
  await RELOAD_MARKER.run(db, []);
  await RAISE_VERSIONS.run(db, []);
  return result;
}
