import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { directoryChanges, type DirectoryChanges } from '../directory-changes/directory-changes.js';
import { importSnapshot, type ImportCounts } from '../snapshot/import.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { storedRecords } from '../store/directory-writes/directory-records.js';

/** The demo company shipped with collab-host (Chinese and English names, three department levels, every file type). */
export const DEMO_SNAPSHOT_PATH = fileURLToPath(new URL('../../demo/snapshot.json', import.meta.url));

/** The demo user the start-up banner offers a token for: creator of most demo files, member of R&D. */
export const DEMO_USER_ID = 'zhangsan';

/**
 * Loads the demo snapshot when the store has no users (a first start), so a fresh clone has something
 * to serve; through the one validated path (`changes`, source `snapshot`). A store with any user is left
 * alone. Returns what was imported, or null when nothing was.
 */
export async function seedDemoIfEmpty(
  store: OpenDatabase,
  snapshotPath: string = DEMO_SNAPSHOT_PATH,
  changes: DirectoryChanges = directoryChanges(store),
): Promise<ImportCounts | null> {
  if ((await storedRecords(store.db).pageIds('users', { limit: 1 })).length > 0) return null;
  const snapshot = JSON.parse(await readFile(snapshotPath, 'utf8')) as unknown;
  const result = await importSnapshot(changes, snapshot, { baseDir: dirname(snapshotPath) });
  if (!result.ok) {
    const first = result.problems.slice(0, 5).map((problem) => `${problem.path}: ${problem.message}`);
    throw new Error(`demo snapshot ${snapshotPath} is invalid: ${first.join('; ') || result.message}`);
  }
  return result.counts;
}

/** The user whose token the banner prints: the demo user when present, otherwise the first user by id. */
export async function bannerUserId(store: OpenDatabase): Promise<string | undefined> {
  const reader = storedRecords(store.db);
  if ((await reader.read('users', [DEMO_USER_ID])).length > 0) return DEMO_USER_ID;
  return (await reader.pageIds('users', { limit: 1 }))[0];
}
