import { Type, type Static } from 'typebox';
import { ID_PATTERN, TEXT_LIMITS, TEXT_PATTERN } from '../directory/text-rules.js';
import { ROLES } from '../directory/types.js';

/**
 * The records of the directory snapshot (contracts.md, "Directory snapshot"), as TypeBox schemas.
 * These check shape only (types, required fields, unknown fields); the rules between records
 * (references, cycles, duplicates, times) are `validateSnapshot`'s. The management API validates a
 * single record with the same schemas and rules by passing a one-record snapshot.
 */

/** Document kinds of the interface, plus `file` for a third-party file whose bytes are not edited collaboratively. */
/** The interface's types, then the kit's beyond it (platform-api.md §6.7; issue 24), then `file` (third-party). */
export const FILE_TYPES = ['documentPro', 'document', 'spreadsheet', 'table', 'presentation', 'form', 'flowchart', 'mindmap', 'board', 'file'] as const;
export type SnapshotFileType = (typeof FILE_TYPES)[number];

export const PRINCIPAL_KINDS = ['user', 'department', 'team'] as const;

/**
 * Every string of a record follows the one rule of src/directory/text-rules.ts (well-formed Unicode, no NUL,
 * ids without control characters, its length limits), so every store takes the same values and every
 * value written can be read back. `schemaProblems` words the patterns for people. An id of a team,
 * department, user or file:
 */
export const IdSchema = Type.String({ minLength: 1, maxLength: TEXT_LIMITS.id, pattern: ID_PATTERN });
const Id = IdSchema;
const Name = Type.String({ minLength: 1, maxLength: TEXT_LIMITS.name, pattern: TEXT_PATTERN });
const Text = (options: { minLength?: number; maxLength: number }) => Type.String({ ...options, pattern: TEXT_PATTERN });

export const TeamRecordSchema = Type.Object({ id: Id, name: Name }, { additionalProperties: false });

export const DepartmentRecordSchema = Type.Object(
  {
    id: Id,
    name: Name,
    teamId: Id,
    /** null or absent: a first-level department. */
    parentId: Type.Optional(Type.Union([Id, Type.Null()])),
  },
  { additionalProperties: false },
);

export const UserRecordSchema = Type.Object(
  {
    id: Id,
    name: Name,
    email: Type.Optional(Text({ maxLength: TEXT_LIMITS.email })),
    avatar: Type.Optional(Text({ maxLength: TEXT_LIMITS.avatar })),
    teamId: Type.Optional(Id),
    departmentIds: Type.Optional(Type.Array(Id)),
    /** Absent: the configured template; `[]` hides the watermark. */
    watermark: Type.Optional(Type.Array(Text({ maxLength: TEXT_LIMITS.watermarkLine }))),
    /** false: deactivated (a leaver: tokens refused, left out of lists of people; files and grants kept). Absent: true. */
    active: Type.Optional(Type.Boolean()),
    /** The person's language for messages: a BCP 47 tag such as `zh-CN` or `en` (absent: zh-CN). */
    locale: Type.Optional(Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$' })),
    /** The person's IM identities: an @ of them in a team's group bot (docs/notifications.md). */
    im: Type.Optional(
      Type.Object(
        {
          wecom: Type.Optional(Text({ minLength: 1, maxLength: 255 })),
          dingtalk: Type.Optional(Text({ minLength: 1, maxLength: 255 })),
          feishu: Type.Optional(Text({ minLength: 1, maxLength: 255 })),
          slack: Type.Optional(Text({ minLength: 1, maxLength: 255 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const SharingEntrySchema = Type.Object(
  {
    /** `user:ID`, `department:ID` or `team:ID`. */
    principal: Type.String({ minLength: 1, maxLength: TEXT_LIMITS.principal, pattern: ID_PATTERN }),
    role: Type.Enum([...ROLES]),
  },
  { additionalProperties: false },
);

/** `copy`, `export`; and any of the kit's nine keys, `false` switching that key off for everyone on the file. */
export const RestrictionsSchema = Type.Object(
  {
    copy: Type.Optional(Type.Boolean()),
    export: Type.Optional(Type.Boolean()),
    lockable: Type.Optional(Type.Boolean()),
    unlockable: Type.Optional(Type.Boolean()),
    formFillable: Type.Optional(Type.Boolean()),
    copyablePasteClipboard: Type.Optional(Type.Boolean()),
    attachmentCopyable: Type.Optional(Type.Boolean()),
    cutable: Type.Optional(Type.Boolean()),
    attachmentPreviewable: Type.Optional(Type.Boolean()),
    attachmentDownloadable: Type.Optional(Type.Boolean()),
    imageDownloadable: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const FileRecordSchema = Type.Object(
  {
    id: Id,
    name: Name,
    type: Type.Enum([...FILE_TYPES]),
    creatorId: Id,
    /** Absent: the creator's team. */
    teamId: Type.Optional(Id),
    /** `YYYY-MM-DDThh:mm:ssZ` */
    createdAt: Type.String({ maxLength: 64 }),
    /** `YYYY-MM-DDThh:mm:ssZ`, not earlier than `createdAt` */
    updatedAt: Type.String({ maxLength: 64 }),
    /** Stored as a 32-bit integer on both stores. */
    views: Type.Optional(Type.Integer({ maximum: 2_147_483_647 })),
    sharing: Type.Optional(Type.Array(SharingEntrySchema)),
    restrictions: Type.Optional(RestrictionsSchema),
    /** `view`: the platform's anonymous viewer may read this file (read-only); absent: not (docs/sharing.md). */
    anonymous: Type.Optional(Type.Literal('view')),
    /** Extension without a dot, e.g. `docx`. */
    ext: Type.Optional(Text({ minLength: 1, maxLength: TEXT_LIMITS.ext })),
    /** A `file` needs a `downloadUrl` or bytes that collab-host stores (`contentFile`, or bytes already stored). */
    downloadUrl: Type.Optional(Text({ minLength: 1, maxLength: TEXT_LIMITS.url })),
    fullUrl: Type.Optional(Text({ minLength: 1, maxLength: TEXT_LIMITS.url })),
    /** A third-party file's bytes: a path relative to the snapshot file. */
    contentFile: Type.Optional(Text({ minLength: 1, maxLength: TEXT_LIMITS.url })),
  },
  { additionalProperties: false },
);

/** Every section is optional (absent = empty), so a one-record snapshot is a valid snapshot. */
export const SnapshotSchema = Type.Object(
  {
    teams: Type.Optional(Type.Array(Type.Unknown())),
    departments: Type.Optional(Type.Array(Type.Unknown())),
    users: Type.Optional(Type.Array(Type.Unknown())),
    files: Type.Optional(Type.Array(Type.Unknown())),
  },
  { additionalProperties: false },
);

export type TeamRecord = Static<typeof TeamRecordSchema>;
export type DepartmentRecord = Static<typeof DepartmentRecordSchema>;
export type UserRecord = Static<typeof UserRecordSchema>;
export type SharingEntry = Static<typeof SharingEntrySchema>;
export type SnapshotFileRecord = Static<typeof FileRecordSchema>;

/** A snapshot as written in a file: every section optional. */
export interface Snapshot {
  teams?: TeamRecord[];
  departments?: DepartmentRecord[];
  users?: UserRecord[];
  files?: SnapshotFileRecord[];
}

/** The snapshot's sections, in the order references point (files -> users -> departments -> teams). */
export const SECTIONS = ['teams', 'departments', 'users', 'files'] as const;
export type SectionName = (typeof SECTIONS)[number];
