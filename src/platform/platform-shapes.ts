import { Type, type Static } from 'typebox';

/**
 * The bodies the platform API answers with (platform-api.md section 3), as TypeBox schemas: the client
 * checks every answer against its schema, and the management routes reuse them as response schemas.
 * Fields no source marks as always present are optional; extra fields are allowed (the platform may add some).
 */

const Str = Type.String();
const Int = Type.Integer();
const opt = Type.Optional;

/** Import and export start: `{ status, message, data: { taskId } }`, `status` 0 = accepted. */
export const TaskStarted = Type.Object({ status: Int, message: opt(Str), data: opt(Type.Object({ taskId: opt(Str) })) });
/** Import progress: `{ status, message, data: { progress } }`; 100 = done. */
export const ImportProgressBody = Type.Object({ status: Int, message: opt(Str), data: opt(Type.Object({ progress: opt(Type.Number()) })) });
/** Export progress: `{ status, message, data: { progress, downloadUrl } }`. */
export const ExportProgressBody = Type.Object({
  status: Int,
  message: opt(Str),
  data: opt(Type.Object({ progress: opt(Type.Number()), downloadUrl: opt(Str) })),
});
/** Table export (synchronous): `{ status, message, downloadUrl }`. */
export const TableExportBody = Type.Object({ status: Int, message: opt(Str), downloadUrl: opt(Str) });

export const HistoryEntry = Type.Object({
  id: Type.Union([Str, Type.Number()]),
  name: opt(Str),
  content: opt(Str),
  createdAt: opt(Str),
  /** Spelt `updateAt` by the platform. */
  updateAt: opt(Str),
  historyType: opt(Int),
  /** Several ids may be joined by commas. */
  userId: opt(Type.Union([Str, Type.Number()])),
});
export const HistoryPage = Type.Object({
  histories: Type.Array(HistoryEntry),
  isLastPage: opt(Type.Boolean()),
  limit: opt(Int),
  users: opt(Type.Unknown({ description: 'user id -> name' })),
});
export type HistoryPage = Static<typeof HistoryPage>;

export const Revision = Type.Object({
  id: Int,
  label: opt(Str),
  title: opt(Str),
  docHistoryId: opt(Str),
  createdAt: opt(Str),
  updatedAt: opt(Str),
  user: opt(Type.Object({ id: opt(Type.Union([Str, Type.Number()])), name: opt(Str) })),
});
export const RevisionList = Type.Array(Revision);
export type RevisionList = Static<typeof RevisionList>;

export const PlainText = Type.Object({ content: Str });
export const WordCount = Type.Object({ wordCount: Int, keywords: opt(Type.Record(Str, Type.Number())) });
export const MentionList = Type.Object({ mentionAtList: Type.Array(Type.Object({ userId: Str, atGuid: opt(Str) })) });
export type MentionList = Static<typeof MentionList>;
export const CommentCount = Type.Object({ count: Int });

export const Cells = Type.Object({ values: Type.Array(Type.Array(Type.Unknown())), lag: opt(Type.Number()) });
export type Cells = Static<typeof Cells>;
export const Bookmarks = Type.Object({ data: Type.Array(Type.Object({ bookmark: Str, content: Str })) });
export type Bookmarks = Static<typeof Bookmarks>;

export const PreviewCreated = Type.Object({ code: opt(Str), message: opt(Str) });

export const UploadTokens = Type.Array(
  Type.Object({
    accessToken: Str,
    directory: opt(Str),
    download: opt(Str),
    guid: opt(Str),
    images: opt(Str),
    fileFieldKey: opt(Str),
    key: opt(Str),
    serverUrl: opt(Str),
    url: opt(Str),
  }),
);
export type UploadTokens = Static<typeof UploadTokens>;
export const Uploaded = Type.Object({ code: Type.Number(), data: opt(Type.Unknown()), body: opt(Type.Record(Str, Type.Unknown())) });
export type Uploaded = Static<typeof Uploaded>;

export const AppDetails = Type.Object({
  appName: Str,
  availableFileTypes: opt(Type.Array(Str)),
  premiumFileTypes: opt(Type.Array(Str)),
  activatedUserCount: opt(Int),
  /** Activated, disabled and never-enabled users. */
  userCount: opt(Int),
  /** Licensed seats. */
  memberLimit: opt(Int),
  validFrom: opt(Str),
  validUntil: opt(Str),
  /** The callback base address the platform calls. */
  endpointUrl: opt(Str),
});
export type AppDetails = Static<typeof AppDetails>;

/** Seat states: 1 activated (holds a seat), 0 disabled, -1 never enabled. */
export const SEAT_STATUSES = [1, 0, -1] as const;
export type SeatStatus = (typeof SEAT_STATUSES)[number];
export const Seat = Type.Object({ userId: Str, createdAt: opt(Str), status: Int });
export const SeatList = Type.Array(Seat);
export type Seat = Static<typeof Seat>;

export const AiTask = Type.Object({ taskId: Str });
export const AiProgress = Type.Object({ taskId: opt(Str), status: Str, progress: opt(Type.Number()), message: opt(Str) });
export type AiProgress = Static<typeof AiProgress>;
