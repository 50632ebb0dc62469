import type { FileRecord, FileType, User } from '../src/directory/types.js';
import type { GeneratedCompany } from './generate.js';

type SnapshotFile = GeneratedCompany['snapshot']['files'][number];
type SnapshotUser = GeneratedCompany['snapshot']['users'][number];

/** A generated file as the read model holds it (`name` to write it renamed). */
export function fileRecordOf(file: SnapshotFile, name = file.name): Omit<FileRecord, 'hasStoredContent'> {
  return {
    id: file.id,
    name,
    type: file.type as FileType,
    creatorId: file.creatorId,
    teamId: file.teamId,
    createdAt: file.createdAt,
    updatedAt: file.updatedAt,
    views: file.views,
    ext: null,
    downloadUrl: null,
    fullUrl: null,
    restrictions: { copy: true, export: true },
    status: 'active',
  };
}

/** A generated person as the read model holds them (`name` to write them renamed). */
export function userRecordOf(user: SnapshotUser, name = user.name): User {
  return { id: user.id, name, email: user.email, avatar: user.avatar, teamId: user.teamId, watermark: null, active: true };
}
