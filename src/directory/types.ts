/** The domain's records, as the interface (callback-interface.md part 2) and the snapshot describe them. */

export interface Team {
  id: string;
  name: string;
}

export interface Department {
  id: string;
  name: string;
  teamId: string;
  /** null for a first-level department (its parent is the team root). */
  parentId: string | null;
}

export interface User {
  id: string;
  name: string;
  email: string | null;
  avatar: string | null;
  teamId: string | null;
  /** Per-user watermark lines; null = the configured template; [] hides the watermark. */
  watermark: string[] | null;
  /**
   * false: deactivated (a leaver): their tokens are refused and lists of people leave them out, while
   * their files and history stay. Absent or true: active (a host directory may leave it out).
   */
  active?: boolean;
  /** The person's language for messages (`zh-CN`, `en`); absent or null: not known (zh-CN is used). */
  locale?: string | null;
  /** The person's IM identities, for an @ of them in a team's group bot (docs/notifications.md). */
  im?: ImIds | null;
}

/** The IMs whose group bots collab-host posts to: the keys of `ImIds`. */
export const IM_KINDS = ['wecom', 'dingtalk', 'feishu', 'slack'] as const;
export type ImKind = (typeof IM_KINDS)[number];

/** A person's user id in each IM whose group bots collab-host posts to. */
export interface ImIds {
  /** WeCom (企业微信) userid. */
  wecom?: string;
  /** DingTalk (钉钉) userId. */
  dingtalk?: string;
  /** Feishu / Lark open_id (`ou_…`). */
  feishu?: string;
  /** Slack member id (`U…`). */
  slack?: string;
}

/** The document kinds the interface names, plus `file` for third-party stored files. */
export type FileType = string;

export interface FileRecord {
  id: string;
  name: string;
  type: FileType;
  creatorId: string;
  /** The owning team; null when neither the file nor its creator has one. */
  teamId: string | null;
  /** `YYYY-MM-DDThh:mm:ssZ` */
  createdAt: string;
  /** `YYYY-MM-DDThh:mm:ssZ` */
  updatedAt: string;
  views: number | null;
  ext: string | null;
  downloadUrl: string | null;
  fullUrl: string | null;
  /** Whether collab-host holds the bytes of this third-party file itself. */
  hasStoredContent: boolean;
  restrictions: Restrictions;
  /** `view`: the platform's anonymous viewer may read the file (docs/sharing.md); absent: not (the default). */
  anonymous?: 'view';
  /** `active` is served; `pending` and `failed` are documents whose platform creation has not succeeded. */
  status: FileStatus;
}

export type FileStatus = 'active' | 'pending' | 'failed';

/**
 * What a file's restrictions take away. `copy`, `export`: see below. Any of the kit's nine keys present
 * (always `false`): that key is false for everyone on the file, managers included (docs/sharing.md
 * "Permission keys"); absent: derived from the role. Only keys switched off are ever present.
 */
export type Restrictions = {
  /** false: `copyable` only for those who may edit. */
  copy: boolean;
  /** false: `exportable` only for managers. */
  export: boolean;
} & Partial<Record<FinePermissionKey, false>>;

/** Roles, each including the one before. */
export const ROLES = ['viewer', 'commenter', 'editor', 'manager'] as const;
export type Role = (typeof ROLES)[number];

export type PrincipalKind = 'user' | 'department' | 'team';

export interface Grant {
  fileId: string;
  principalKind: PrincipalKind;
  principalId: string;
  role: Role;
}

/** The interface's six permission keys (2.1). */
export interface CorePermissions {
  readable: boolean;
  commentable: boolean;
  editable: boolean;
  copyable: boolean;
  exportable: boolean;
  manageable: boolean;
}

/** The platform kit's keys beyond the interface's six (platform-api.md §6.8), derived by permissions.ts. */
export const FINE_PERMISSION_KEYS = [
  'lockable',
  'unlockable',
  'formFillable',
  'copyablePasteClipboard',
  'attachmentCopyable',
  'cutable',
  'attachmentPreviewable',
  'attachmentDownloadable',
  'imageDownloadable',
] as const;
export type FinePermissionKey = (typeof FINE_PERMISSION_KEYS)[number];

/** Permissions of one user on one file: the interface's six and the kit's nine. */
export type Permissions = CorePermissions & Record<FinePermissionKey, boolean>;

/** A department with its member count over the whole subtree (interface 2.6). */
export interface DepartmentSummary {
  id: string;
  name: string;
  allMemberCount: number;
}

export interface DepartmentPathNode {
  id: string;
  name: string;
}

/** One page of a list: `offset` rows skipped, at most `limit` taken. */
export interface PageRequest {
  offset: number;
  limit: number;
}

export interface Paged<T> {
  total: number;
  items: T[];
}

/** A file together with the strongest role any grant gives the asking user (null: none, or only creator). */
export interface FileWithGrant {
  file: FileRecord;
  grantedRole: Role | null;
}
