import type { Selectable } from 'kysely';
import { switchedOff } from '../../directory/restrictions.js';
import type { FileRecord, FileStatus, FinePermissionKey, ImIds, User } from '../../directory/types.js';
import type { Database } from '../schema/schema.js';

/** A row of `users` as both dialects return it. */
export type UserRow = Selectable<Database['users']>;
/** A row of `files`, with whether collab-host holds its bytes (`file_contents`). */
export type FileRow = Selectable<Database['files']> & { has_content: number | boolean | null };

/** The domain's user from its row. */
export function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    avatar: row.avatar,
    teamId: row.team_id,
    watermark: row.watermark === null ? null : (JSON.parse(row.watermark) as string[]),
    active: Number(row.active) !== 0,
    // Only when known, so the directory's user has the same members as before these attributes existed.
    ...(row.locale ? { locale: row.locale } : {}),
    ...(row.im ? { im: JSON.parse(row.im) as ImIds } : {}),
  };
}

/** The domain's file from its row. */
export function toFile(row: FileRow): FileRecord {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    creatorId: row.creator_id,
    teamId: row.team_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    views: row.views,
    ext: row.ext,
    downloadUrl: row.download_url,
    fullUrl: row.full_url,
    hasStoredContent: Number(row.has_content ?? 0) === 1,
    restrictions: restrictionsOfRow(row),
    status: row.status as FileStatus,
    ...(row.anonymous_access === 'view' ? { anonymous: 'view' as const } : {}),
  };
}

/** A file's restrictions from its columns (`restrict_keys`: the JSON array of the kit's keys switched off). */
export function restrictionsOfRow(row: { restrict_copy: number | string; restrict_export: number | string; restrict_keys: string | null }): FileRecord['restrictions'] {
  const restrictions = { copy: Number(row.restrict_copy) === 0, export: Number(row.restrict_export) === 0 };
  return row.restrict_keys === null ? restrictions : { ...restrictions, ...switchedOff(JSON.parse(row.restrict_keys) as FinePermissionKey[]) };
}
