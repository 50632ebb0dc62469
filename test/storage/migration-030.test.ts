import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { SqlFileObjects } from '../../src/store/files/file-objects.js';
import { storeBefore } from '../helpers/store-before.js';
import { dialects } from '../helpers/stores.js';

/** A database migrated up to, and not including, 030: as a store released before file storage is. */
const storeBefore030 = (dialect: DialectName) => storeBefore(dialect, '030');

for (const dialect of dialects) {
  describe(`migration 030-file-storage [${dialect}]`, () => {
    it('keeps every stored file with its bytes in the row, and records their SHA-256', async () => {
      const store = await storeBefore030(dialect);
      try {
        const rows = Array.from({ length: 120 }, (_, i) => ({
          file_id: `f${String(i).padStart(3, '0')}`,
          content_type: 'text/plain',
          content: Buffer.from(`bytes of ${i}`),
          size: 0,
        }));
        for (const row of rows) row.size = row.content.length;
        await (store.db as unknown as Kysely<{ file_contents: (typeof rows)[number] }>).insertInto('file_contents').values(rows).execute();
        await store.migrateAll();
        const objects = new SqlFileObjects(store.db);
        const listed = await objects.list({ limit: 500 });
        expect(listed).toHaveLength(120);
        for (const [i, object] of listed.entries()) {
          expect(object).toEqual({
            fileId: rows[i]!.file_id,
            contentType: 'text/plain',
            size: rows[i]!.size,
            sha256: createHash('sha256').update(rows[i]!.content).digest('hex'),
            inDatabase: true,
          });
        }
        expect((await objects.readInline('f007'))?.toString()).toBe('bytes of 7');
      } finally {
        await store.close();
      }
    });
  });
}
