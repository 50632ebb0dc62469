import type { Kysely } from 'kysely';
import type { Grant } from '../../src/directory/types.js';
import type { FileInput } from '../../src/store/directory-writes/directory-writer.js';
import { putFileContent, replaceGrants, upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import type { Database } from '../../src/store/schema/schema.js';
import { FILES, seedDirectory } from '../helpers/directory-fixture.js';

/**
 * Files added on top of the shared fixture (test/helpers/directory-fixture.ts) for the file callbacks;
 * kept apart so the shared fixture's own rows and counts stay as other suites expect them.
 *
 *   manual    file (pdf)   zhang    no team of its own (teamGuid from its creator), stored bytes, team:acme viewer
 *   bare      file         zhang    neither downloadUrl nor stored bytes, user:alice viewer
 *   draft     documentPro  zhang    status pending
 *   broken    documentPro  zhang    status failed
 *   orphan    document     outsider no team anywhere, user:olga commenter
 *   mixed     spreadsheet  alice    user:hanmeimei viewer + department:fe manager, user:carol editor, user:olga commenter
 *   loose     documentPro  lilei    no team of its own (teamGuid from its creator), department:web viewer
 */
const base = FILES[0] as FileInput;
const extra = (id: string, name: string, type: string, creatorId: string, more: Partial<FileInput> = {}): FileInput => ({
  ...base,
  id,
  name,
  type,
  creatorId,
  views: null,
  createdAt: '2024-02-01T08:00:00Z',
  updatedAt: '2024-02-01T08:00:00Z',
  ...more,
});

export const MANUAL_BYTES = Buffer.from('%PDF-1.4 collab-host test bytes\n');

export const EXTRA_FILES: FileInput[] = [
  extra('manual', '员工手册 (2024)', 'file', 'zhang', { teamId: null, ext: 'pdf', updatedAt: '2024-03-06T08:00:00Z' }),
  extra('bare', 'bare.txt', 'file', 'zhang', { ext: '.txt' }),
  extra('draft', 'Draft', 'documentPro', 'zhang', { status: 'pending', updatedAt: '2024-03-09T08:00:00Z' }),
  extra('broken', 'Broken', 'documentPro', 'zhang', { status: 'failed', updatedAt: '2024-03-09T08:00:00Z' }),
  extra('orphan', 'Orphan', 'document', 'outsider', { teamId: null }),
  extra('mixed', 'Mixed 混合', 'spreadsheet', 'alice'),
  extra('loose', 'Loose', 'documentPro', 'lilei', { teamId: null }),
];

export const EXTRA_GRANTS: Grant[] = [
  { fileId: 'manual', principalKind: 'team', principalId: 'acme', role: 'viewer' },
  { fileId: 'bare', principalKind: 'user', principalId: 'alice', role: 'viewer' },
  { fileId: 'orphan', principalKind: 'user', principalId: 'olga', role: 'commenter' },
  { fileId: 'mixed', principalKind: 'user', principalId: 'hanmeimei', role: 'viewer' },
  { fileId: 'mixed', principalKind: 'department', principalId: 'fe', role: 'manager' },
  { fileId: 'mixed', principalKind: 'user', principalId: 'carol', role: 'editor' },
  { fileId: 'mixed', principalKind: 'user', principalId: 'olga', role: 'commenter' },
  { fileId: 'loose', principalKind: 'department', principalId: 'web', role: 'viewer' },
];

/** The shared fixture plus the extra files above. */
export async function seedWithExtras(db: Kysely<Database>): Promise<void> {
  await seedDirectory(db);
  await upsertFiles(db, EXTRA_FILES);
  await replaceGrants(
    db,
    EXTRA_FILES.map((file) => file.id),
    EXTRA_GRANTS,
  );
  await putFileContent(db, 'manual', 'application/pdf', MANUAL_BYTES);
}
