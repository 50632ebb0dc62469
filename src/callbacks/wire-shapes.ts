import { Type, type Static } from 'typebox';
import type { FileAccess, FileView, TeamSummary } from '../directory/directory-service.js';
import { formatTime, isInterfaceTime } from '../directory/time.js';
import type { FileRecord, User } from '../directory/types.js';
import { FileSummarySchema, PermissionsSchema, UserSchema, type FileSummaryBody, type UserBody } from '../http/schemas.js';

/**
 * How files and users go on the wire, in one place: the file, user, search and admin routes all shape
 * through these functions, so one record always looks the same everywhere.
 *
 * A user who may not read a file still gets its id and type (the platform needs the type to choose
 * editor or preview) with every permission false; everything else is blanked: empty name and creator,
 * the epoch as both times, `views` 1, no `teamGuid`, an empty `downloadUrl`, no `ext`.
 */

/** `views` when the file has none (interface 2.2). */
export const DEFAULT_VIEWS = 1;
const BLANK_TIME = '1970-01-01T00:00:00Z';

/**
 * A time in the interface's one format. collab-host's store already holds that form; a host directory
 * may hand back milliseconds or an offset, and the response serializer does not check patterns.
 */
export function wireTime(text: string): string {
  if (isInterfaceTime(text)) return text;
  const instant = Date.parse(text);
  return Number.isNaN(instant) ? BLANK_TIME : formatTime(instant);
}

/** User (2.4): `id`, `name`, `avatar`, `email` (missing values as empty strings). */
export function toUserBody(user: User): UserBody {
  return { id: user.id, name: user.name, avatar: user.avatar ?? '', email: user.email ?? '' };
}

export const CurrentUserSchema = Type.Object({
  ...UserSchema.properties,
  teamGuid: Type.Optional(Type.String({ description: "the user's team id; absent for a user without a team" })),
});
export type CurrentUserBody = Static<typeof CurrentUserSchema>;

/** The current user (`GET /users/current/info`): User with `teamGuid`, the same value files carry. */
export function toCurrentUserBody(user: User): CurrentUserBody {
  const body: CurrentUserBody = toUserBody(user);
  if (user.teamId !== null) body.teamGuid = user.teamId;
  return body;
}

export const CollaboratorSchema = Type.Object({ ...UserSchema.properties, isManager: Type.Boolean() });

export const TeamSchema = Type.Object({ id: Type.String(), name: Type.String(), memberCount: Type.Integer({ minimum: 0 }) });

export function toTeamBody(team: TeamSummary): Static<typeof TeamSchema> {
  return { id: team.id, name: team.name, memberCount: team.memberCount };
}

/** The integrator page of a file: its own `fullUrl`, else FILE_URL_TEMPLATE with `{fileId}`. */
export function fileFullUrl(file: FileRecord, fileUrlTemplate: string): string {
  return file.fullUrl ?? fileUrlTemplate.replaceAll('{fileId}', encodeURIComponent(file.id));
}

/**
 * File (2.2) without `teamGuid`, as lists, search results and the admin endpoints return it. With
 * `fileUrlTemplate`, third-party files (`type` = `file`) carry `fullUrl` (search results need it).
 */
export function toFileSummary(access: FileAccess, options: { fileUrlTemplate?: string } = {}): FileSummaryBody {
  const { file, permissions } = access;
  if (!permissions.readable) {
    return { id: file.id, name: '', type: file.type, creatorId: '', createdAt: BLANK_TIME, updatedAt: BLANK_TIME, views: DEFAULT_VIEWS, permissions };
  }
  const body: FileSummaryBody = {
    id: file.id,
    name: file.name,
    type: file.type,
    creatorId: file.creatorId,
    createdAt: wireTime(file.createdAt),
    updatedAt: wireTime(file.updatedAt),
    views: file.views ?? DEFAULT_VIEWS,
    permissions,
  };
  if (options.fileUrlTemplate !== undefined && file.type === 'file') body.fullUrl = fileFullUrl(file, options.fileUrlTemplate);
  return body;
}

/** File (2.2) of `GET /files/{fileId}` for a collaborative document (`fullUrl` is never set here). */
export const FileDocumentSchema = Type.Object({
  ...FileSummarySchema.properties,
  teamGuid: Type.Optional(Type.String({ description: "the file's team, else its creator's team" })),
});
export type FileDocumentBody = Static<typeof FileDocumentSchema>;

export function toFileDocument(view: FileView): FileDocumentBody {
  const body: FileDocumentBody = toFileSummary(view);
  if (view.permissions.readable && view.teamGuid !== null) body.teamGuid = view.teamGuid;
  return body;
}

/** Preview metadata (2.3) of `GET /files/{fileId}` for a third-party file (`type` = `file`). */
export const FilePreviewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.Literal('file'),
  permissions: PermissionsSchema,
  downloadUrl: Type.String({ description: 'external address, a signed expiring link to the stored bytes, or empty' }),
  ext: Type.Optional(Type.String({ description: 'extension without a dot' })),
});
export type FilePreviewBody = Static<typeof FilePreviewSchema>;

/**
 * The preview shape. `storedContentLink` makes the signed link for a file whose bytes collab-host holds
 * (used only when the file has no external `downloadUrl`).
 */
export function toFilePreview(view: FileView, storedContentLink: (fileId: string) => string): FilePreviewBody {
  const { file, permissions } = view;
  if (!permissions.readable) return { id: file.id, name: '', type: 'file', permissions, downloadUrl: '' };
  const downloadUrl = file.downloadUrl ?? (file.hasStoredContent ? storedContentLink(file.id) : '');
  const body: FilePreviewBody = { id: file.id, name: file.name, type: 'file', permissions, downloadUrl };
  const ext = file.ext?.replace(/^\.+/, '');
  if (ext) body.ext = ext;
  return body;
}
