import type { FileRecord } from '../../src/directory/types.js';

/** A file as the read model holds it: an active document of team t1 by u1, with what a test gives. */
export function fileRecord(given: Pick<FileRecord, 'id' | 'name' | 'updatedAt'> & Partial<FileRecord>): FileRecord {
  return {
    type: 'document',
    creatorId: 'u1',
    teamId: 't1',
    createdAt: '2026-01-01T00:00:00Z',
    views: null,
    ext: null,
    downloadUrl: null,
    fullUrl: null,
    hasStoredContent: false,
    restrictions: { copy: true, export: true },
    status: 'active',
    ...given,
  };
}
