import { describe, expect, it } from 'vitest';
import { NO_PERMISSIONS, permissionsFor } from '../../src/directory/permissions.js';
import type { FileRecord } from '../../src/directory/types.js';
import { toFileSummary, toFilePreview, wireTime } from '../../src/callbacks/wire-shapes.js';

const FILE: FileRecord = {
  id: 'f1',
  name: 'Report',
  type: 'file',
  creatorId: 'u1',
  teamId: 't1',
  createdAt: '2024-03-01T08:00:00.123Z',
  updatedAt: '2024-03-01T16:00:00+08:00',
  views: null,
  ext: '.pdf',
  downloadUrl: null,
  fullUrl: null,
  hasStoredContent: true,
  restrictions: { copy: true, export: true },
  status: 'active',
};
const viewer = permissionsFor('viewer', FILE.restrictions);

describe('wire shapes', () => {
  it('times from any directory leave in the interface format', () => {
    expect(wireTime('2024-03-01T08:00:00Z')).toBe('2024-03-01T08:00:00Z');
    expect(wireTime('2024-03-01T08:00:00.123Z')).toBe('2024-03-01T08:00:00Z');
    expect(wireTime('2024-03-01T16:00:00+08:00')).toBe('2024-03-01T08:00:00Z');
    const summary = toFileSummary({ file: FILE, permissions: viewer });
    expect([summary.createdAt, summary.updatedAt]).toEqual(['2024-03-01T08:00:00Z', '2024-03-01T08:00:00Z']);
  });

  it('search-style summaries carry fullUrl for third-party files only, from the file or the template', () => {
    const template = 'https://oa.example.com/doc/{fileId}';
    expect(toFileSummary({ file: FILE, permissions: viewer }, { fileUrlTemplate: template }).fullUrl).toBe('https://oa.example.com/doc/f1');
    expect(toFileSummary({ file: { ...FILE, fullUrl: 'https://x/f1' }, permissions: viewer }, { fileUrlTemplate: template }).fullUrl).toBe('https://x/f1');
    expect(toFileSummary({ file: { ...FILE, type: 'sheet' }, permissions: viewer }, { fileUrlTemplate: template })).not.toHaveProperty('fullUrl');
    expect(toFileSummary({ file: FILE, permissions: viewer })).not.toHaveProperty('fullUrl');
  });

  it('previews strip the dot of ext and prefer an external downloadUrl over stored bytes', () => {
    const link = (id: string) => `https://collab/content/${id}`;
    expect(toFilePreview({ file: FILE, permissions: viewer, teamGuid: 't1' }, link)).toMatchObject({ ext: 'pdf', downloadUrl: 'https://collab/content/f1' });
    expect(toFilePreview({ file: { ...FILE, downloadUrl: 'https://cdn/f1' }, permissions: viewer, teamGuid: 't1' }, link).downloadUrl).toBe('https://cdn/f1');
    expect(toFilePreview({ file: FILE, permissions: { ...NO_PERMISSIONS }, teamGuid: 't1' }, link)).toEqual({
      id: 'f1',
      name: '',
      type: 'file',
      permissions: NO_PERMISSIONS,
      downloadUrl: '',
    });
  });
});
