import { createHash } from 'node:crypto';

/**
 * The key of a file's bytes in a directory or bucket: `ab/ab12…` (the hex SHA-256 of the file id, under
 * its first two characters). File ids may hold any character (`/`, `..`, CJK, hundreds of bytes), so none
 * of them reaches a path or a URL; the row of `file_contents` maps the id to its bytes.
 */
export function objectKey(fileId: string): string {
  const hash = createHash('sha256').update(fileId, 'utf8').digest('hex');
  return `${hash.slice(0, 2)}/${hash}`;
}
