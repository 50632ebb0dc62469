import { Type, type Static } from 'typebox';
import { TIME_PATTERN } from '../directory/time.js';

/** Response schemas shared by several routes (interface part 2). Route-specific ones live beside their route. */

export const ErrorSchema = Type.Object(
  { error: Type.Object({ code: Type.String(), message: Type.String() }) },
  { $id: 'Error', description: 'Every failure: a stable code and a message for people' },
);

/** The standard refusal responses a route declares next to its 200. */
export const errorResponses = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, ErrorSchema])) as Record<number, typeof ErrorSchema>;

export const TimeSchema = Type.String({ pattern: TIME_PATTERN, description: 'UTC, YYYY-MM-DDThh:mm:ssZ' });

export const PermissionsSchema = Type.Object({
  readable: Type.Boolean(),
  commentable: Type.Boolean(),
  editable: Type.Boolean(),
  copyable: Type.Boolean(),
  exportable: Type.Boolean(),
  manageable: Type.Boolean(),
  // The platform kit's keys beyond the interface's (src/directory/permissions.ts, docs/sharing.md).
  lockable: Type.Boolean(),
  unlockable: Type.Boolean(),
  formFillable: Type.Boolean(),
  copyablePasteClipboard: Type.Boolean(),
  attachmentCopyable: Type.Boolean(),
  cutable: Type.Boolean(),
  attachmentPreviewable: Type.Boolean(),
  attachmentDownloadable: Type.Boolean(),
  imageDownloadable: Type.Boolean(),
});

/** User (2.4) as every user list returns it. */
export const UserSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  avatar: Type.String(),
  email: Type.String(),
});
export type UserBody = Static<typeof UserSchema>;

/** File (2.2) without `teamGuid` (lists, search results); `fullUrl` only for `type` = `file`. */
export const FileSummarySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  creatorId: Type.String(),
  createdAt: TimeSchema,
  updatedAt: TimeSchema,
  views: Type.Number(),
  permissions: PermissionsSchema,
  fullUrl: Type.Optional(Type.String()),
});
export type FileSummaryBody = Static<typeof FileSummarySchema>;

export const DepartmentSummarySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  allMemberCount: Type.Integer({ minimum: 0 }),
});

export const PathNodeSchema = Type.Object({ id: Type.String(), name: Type.String() });
