import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupRefused, type BackupManifest } from '../../src/backup/manifest.js';
import { restoreBackup } from '../../src/backup/restore-backup.js';
import { takeBackup } from '../../src/backup/take-backup.js';
import { objectKey } from '../../src/storage/object-key.js';
import { EVENT_ACTIONS, EVENT_KINDS, eventBody, eventCredential } from '../../src/conformance/event-bodies.js';
import { commentCreate, postEvent, signedHeaders, tokenHeaders } from '../events/event-fixtures.js';
import { dialects } from '../helpers/stores.js';
import { backupApp, fillStore, placeStore, sha256, storeRows, UPLOADED, type PlacedStore } from './backup-fixture.js';

const backupOf = (source: PlacedStore, out: string) => takeBackup({ store: source.store, url: source.url, backend: source.storage.backend, out, version: '0.1.0-test' });
const restoreInto = (target: PlacedStore, path: string, replace = false) => restoreBackup({ path, store: target.store, backend: target.storage.backend, replace });

async function bytesOf(placed: PlacedStore, fileId: string): Promise<Buffer | undefined> {
  const opened = await placed.storage.open(fileId);
  if (!opened) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of (await opened.bytes.stream()) as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function refusal(work: Promise<unknown>): Promise<BackupRefused> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BackupRefused);
  return error as BackupRefused;
}

for (const dialect of dialects) {
  describe(`backup and restore [${dialect}]`, { timeout: 120_000 }, () => {
    let source: PlacedStore;
    let backup: string;
    let manifest: BackupManifest;
    let rows: Record<string, string[]>;

    beforeAll(async () => {
      source = await placeStore(dialect);
      await fillStore(source);
      rows = await storeRows(source);
      backup = join(source.dir, 'backup');
      manifest = await backupOf(source, backup);
    }, 120_000);
    afterAll(async () => {
      await source?.close();
    });

    it('carries every table with its row count, the migrations, and the file bytes', () => {
      for (const table of ['events', 'reminders', 'notifications', 'sync_runs', 'audit_log', 'file_contents', 'revisions', 'users', 'files', 'share_links', 'share_guests']) {
        expect(rows[table]!.length, table).toBeGreaterThan(0);
        expect(manifest.tables[table]?.rows, table).toBe(rows[table]!.length);
      }
      expect(Object.keys(manifest.tables).sort()).toEqual(Object.keys(rows).sort());
      expect(manifest.migrations).toContain('091-notification-channels');
      // `manual` keeps its bytes in its row, `contract` was uploaded under fs:.
      expect(manifest.contents).toMatchObject({ location: 'fs', included: 2, notIncluded: 0, changedDuringBackup: 0 });
      expect(sha256(readFileSync(join(backup, 'contents', objectKey('contract'))))).toBe(sha256(UPLOADED));
    });

    for (const into of dialects) {
      it(`restores into an empty ${into} store: every row and every byte comes back, and the service works on it`, async () => {
        const target = await placeStore(into);
        try {
          const summary = await restoreInto(target, backup);
          expect(summary.contents).toBe(2);
          expect(await storeRows(target)).toEqual(rows);
          expect(sha256((await bytesOf(target, 'contract'))!)).toBe(sha256(UPLOADED));
          expect(await bytesOf(target, 'manual')).toEqual(await bytesOf(source, 'manual'));
          // New rows get ids after the restored ones (PostgreSQL's sequences were moved past them).
          const { app, settle } = await backupApp(target);
          try {
            const next = await postEvent(app, 'Comment', commentCreate('plan', 'zhang', { guid: 'after', content: 'after' }), tokenHeaders('zhang'));
            expect(next.statusCode).toBe(200);
            await settle();
          } finally {
            await app.close();
          }
          const events = await target.store.db.selectFrom('events').select('id').orderBy('id').execute();
          expect(events).toHaveLength(rows.events!.length + 1);
          expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
        } finally {
          await target.close();
        }
      });
    }

    it('refuses a store that holds anything unless --replace, which replaces it', async () => {
      const target = await placeStore(dialect);
      try {
        await fillStore(target);
        await target.store.db.deleteFrom('sync_runs').execute();
        const refused = await refusal(restoreInto(target, backup));
        expect(refused.reason).toBe('not_empty');
        expect(refused.message).toMatch(/^restore: the store is not empty \(.*\); restore into an empty store, or pass --replace/);
        expect((await storeRows(target)).sync_runs).toEqual([]);
        await restoreInto(target, backup, true);
        expect(await storeRows(target)).toEqual(rows);
      } finally {
        await target.close();
      }
    });

    it('refuses a damaged backup (a table file or file bytes not matching) and restores nothing', async () => {
      const target = await placeStore(dialect);
      try {
        const events = join(backup, manifest.tables.events!.file);
        const original = readFileSync(events);
        appendFileSync(events, '{"id":999}\n');
        try {
          const refused = await refusal(restoreInto(target, backup));
          expect(refused.reason).toBe('damaged');
          expect(refused.message).toBe(
            `restore: backup ${backup} is damaged: tables/events.ndjson (table events) does not match its SHA-256 in the manifest; nothing was restored`,
          );
        } finally {
          writeFileSync(events, original);
        }
        const bytes = join(backup, 'contents', objectKey('contract'));
        const held = readFileSync(bytes);
        writeFileSync(bytes, Buffer.concat([held.subarray(0, 100), Buffer.from('x'), held.subarray(101)]));
        try {
          const refused = await refusal(restoreInto(target, backup));
          expect(refused.message).toBe(`restore: backup ${backup} is damaged: the bytes of file contract do not match their SHA-256; nothing was restored`);
        } finally {
          writeFileSync(bytes, held);
        }
        expect((await storeRows(target)).users).toEqual([]);
      } finally {
        await target.close();
      }
    });

    it('refuses a backup taken by a newer version (unknown migrations) and restores nothing', async () => {
      const target = await placeStore(dialect);
      const file = join(backup, 'manifest.json');
      const original = readFileSync(file, 'utf8');
      try {
        writeFileSync(file, JSON.stringify({ ...manifest, version: '9.0.0', migrations: [...manifest.migrations, '990-from-the-future'] }));
        const refused = await refusal(restoreInto(target, backup));
        expect(refused.reason).toBe('newer');
        expect(refused.message).toBe(
          `restore: ${backup} was taken by a newer collab-host (9.0.0): migration 990-from-the-future unknown to this version; restore it with that version or a later one. Nothing was restored`,
        );
        expect((await storeRows(target)).users).toEqual([]);
      } finally {
        writeFileSync(file, original);
        await target.close();
      }
    });

    it('a backup taken during a burst of events of every kind holds every event acknowledged before it began', async () => {
      const { app } = await backupApp(source);
      /** The raw bodies acknowledged (200), in order. */
      const acknowledged: string[] = [];
      let sent = 0;
      let stop = false;
      const burst = async () => {
        while (!stop) {
          const index = sent++;
          const kind = EVENT_KINDS[index % EVENT_KINDS.length]!;
          const body = JSON.stringify(eventBody(kind, EVENT_ACTIONS[kind][0]!, { fileId: 'plan', userId: 'zhang', otherUserId: 'lilei', id: `burst-${index}`, appId: 'burst' }));
          const headers = eventCredential(kind) === 'signature' ? signedHeaders('plan', 'zhang') : tokenHeaders('zhang');
          const response = await postEvent(app, kind, body, headers);
          if (response.statusCode === 200) acknowledged.push(body);
        }
      };
      try {
        const senders = [burst(), burst(), burst()];
        while (acknowledged.length < 30) await new Promise((resolve) => setImmediate(resolve));
        const before = [...acknowledged];
        const out = join(source.dir, 'burst-backup');
        const taken = backupOf(source, out);
        await taken;
        stop = true;
        await Promise.all(senders);
        const target = await placeStore(dialect === 'sqlite' && dialects.includes('postgres') ? 'postgres' : dialect);
        try {
          await restoreInto(target, out);
          const bodies = new Set((await target.store.db.selectFrom('events').select('body').execute()).map((row) => row.body));
          expect(before.filter((body) => !bodies.has(body))).toEqual([]);
          expect(before.length).toBeGreaterThanOrEqual(30);
          expect(new Set(before.map((body) => (JSON.parse(body) as { kind: string }).kind)).size).toBe(EVENT_KINDS.length);
        } finally {
          await target.close();
        }
      } finally {
        stop = true;
        await app.close();
      }
    });
  });
}

describe('backup directory', () => {
  it('is written whole or not at all: no partial directory is left beside it', async () => {
    const source = await placeStore('sqlite');
    try {
      await fillStore(source);
      const out = join(source.dir, 'one');
      await backupOf(source, out);
      const again = await refusal(backupOf(source, out));
      expect(again.message).toBe(`backup: ${out} already exists; choose a new path`);
      expect(readdirSync(source.dir).filter((name) => name.includes('partial'))).toEqual([]);
    } finally {
      await source.close();
    }
  });
});
