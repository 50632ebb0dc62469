import { createHash } from 'node:crypto';
import type { DownloadLinks } from '../auth/download-link.js';
import type { Directory } from '../directory/directory.js';
import { bufferObject } from './database-backend.js';
import type { OpenedContent, StoredContentSource } from './file-storage.js';

/**
 * Stored content of a host application's directory (`AppDeps.directory`): its optional
 * `getFileContent`, served behind collab-host's own signed links.
 */
export function hostContentSource(directory: Directory, links: DownloadLinks): StoredContentSource {
  return {
    downloadUrl: async (file, now) => links.linkFor(file.id, now),
    open: async (fileId): Promise<OpenedContent | undefined> => {
      const content = await directory.getFileContent?.(fileId);
      if (!content) return undefined;
      const sha256 = createHash('sha256').update(content.content).digest('hex');
      return { object: { contentType: content.contentType, sha256 }, bytes: bufferObject(content.content) };
    },
  };
}
