import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openStoreSnapshot } from '../../src/store/backup/store-snapshot.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import type { FileStorage } from '../../src/storage/file-storage.js';
import { sqlSyncRuns } from '../../src/store/sync/sync-runs.js';
import { buildEventApp, commentCreate, dateMention, mentionAt, postEvent, revision, tokenHeaders } from '../events/event-fixtures.js';
import { asUser } from '../helpers/app.js';
import { createTestDatabase, createTestSchema, postgresUrl } from '../helpers/stores.js';
import { ADMIN_KEY, putContent, seedStorageFixture, storageFromEnv } from '../storage/storage-fixture.js';

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A store with its URL and its own `fs:` directory for file bytes: a SQLite file, or a fresh PostgreSQL schema. */
export interface PlacedStore {
  url: string;
  dir: string;
  store: OpenDatabase;
  storage: FileStorage;
  close(): Promise<void>;
}

export async function placeStore(dialect: DialectName): Promise<PlacedStore> {
  const dir = mkdtempSync(join(tmpdir(), 'ch-backup-'));
  let url: string;
  let store: OpenDatabase;
  let drop = async () => {};
  if (dialect === 'sqlite') {
    url = `sqlite:${join(dir, 'store.db')}`;
    store = await openDatabase(url);
  } else if (dialect === 'mysql') {
    const database = await createTestDatabase();
    url = database.url;
    store = await openDatabase(url, { poolSize: 4 });
    drop = database.drop;
  } else {
    const schema = await createTestSchema();
    url = postgresUrl!;
    store = await openDatabase(postgresUrl!, { schema: schema.schema, poolSize: 4 });
    drop = schema.drop;
  }
  const storage = storageFromEnv(store, { FILE_STORAGE: `fs:${join(dir, 'objects')}` });
  return {
    url,
    dir,
    store,
    storage,
    async close() {
      await storage.close();
      await store.close();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const UPLOADED = Buffer.concat([Buffer.from('PK\u0003\u0004'), randomBytes(5000)]);

/** An app over the store (its processor off: `settle` derives effects), with the store's `fs:` storage. */
export function backupApp(placed: PlacedStore) {
  return buildEventApp(placed.store, { adminApiKey: ADMIN_KEY, notifyWebhookUrls: ['http://receiver.test/hook'] }, { fileStorage: placed.storage });
}

/**
 * Fills a store the way the service does: the directory, events of several kinds (a comment, a mention,
 * a reminder, a revision) with their effects, an upload under `fs:`, callbacks (audit), a share link with
 * a guest, and a sync run.
 */
export async function fillStore(placed: PlacedStore): Promise<void> {
  await seedStorageFixture(placed.store);
  const { app, settle } = await backupApp(placed);
  try {
    await accept(app, 'Comment', commentCreate('plan', 'zhang', { guid: 'c1', content: '请看 @李雷', userIds: ['lilei'], selectionGuid: 's1' }), 'zhang');
    await accept(app, 'MentionAt', mentionAt('plan', 'zhang', 'comment', { comment: { guid: 'c1', selectionGuid: 's1', content: '请看', userIds: ['lilei'] } }), 'zhang');
    await accept(app, 'DateMention', dateMention('plan', 'zhang', 'create', { id: 'r1', content: '开会', remindUserIds: ['lilei'], remindAt: '2030-01-01T08:00:00Z' }), 'zhang');
    await accept(app, 'Revision', revision('plan', 'zhang', 'create', 7), 'zhang');
    await settle();
    const put = await putContent(app, 'contract', UPLOADED);
    if (put.statusCode >= 300) throw new Error(`upload answered ${put.statusCode}: ${put.body}`);
    for (const fileId of ['plan', 'secret']) await app.inject({ method: 'GET', url: `/files/${fileId}`, headers: asUser('lilei') });
    // A share link with a password and one guest (docs/sharing.md).
    const link = await app.inject({
      method: 'POST',
      url: '/api/files/plan/share-links',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      payload: { role: 'comment', password: 'pw' },
    });
    const guest = await app.inject({ method: 'POST', url: `/share-links/${link.json<{ code: string }>().code}/token`, payload: { name: 'Vera', password: 'pw' } });
    if (guest.statusCode !== 200) throw new Error(`guest token answered ${guest.statusCode}: ${guest.body}`);
  } finally {
    await app.close();
  }
  const runs = sqlSyncRuns(placed.store.db);
  const id = await runs.start({ source: 'ldap', mode: 'full', dryRun: false, detail: null, startedAt: '2024-03-01T08:00:00Z' });
  await runs.finish(id, {
    status: 'ok',
    durationMs: 12,
    counts: { created: 2, updated: 1, removed: 0, deactivated: 0, reactivated: 0, skipped: 0 },
    changes: {},
    skipped: [],
    errors: [],
  });
}

async function accept(app: FastifyInstance, kind: string, body: unknown, userId: string): Promise<void> {
  const response = await postEvent(app, kind, body, tokenHeaders(userId));
  if (response.statusCode !== 200) throw new Error(`${kind} answered ${response.statusCode}`);
}

/**
 * Every row of every table a backup carries, sorted, as JSON (file_contents without its bytes, whose
 * place may differ between stores): what a restore must bring back exactly.
 */
export async function storeRows(placed: PlacedStore): Promise<Record<string, string[]>> {
  const snapshot = await openStoreSnapshot(placed.store, placed.url);
  try {
    const tables: Record<string, string[]> = {};
    for (const table of snapshot.tables) {
      const rows: string[] = [];
      for await (const batch of snapshot.rows(table, 500)) {
        for (const row of batch) {
          if (table === 'file_contents') delete row.content;
          rows.push(JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)))));
        }
      }
      tables[table] = rows.sort();
    }
    return tables;
  } finally {
    await snapshot.close();
  }
}
