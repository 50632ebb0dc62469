/** What each platform API call takes (platform-api.md section 3); the client turns them into requests. */

/** The kit's create-file languages (`jp`, not `ja`, for Japanese). */
export const CREATE_LANGS = ['zh-CN', 'en', 'jp'] as const;
export type CreateLang = (typeof CREATE_LANGS)[number];

export interface FileRef {
  fileId: string;
}

export interface TaskRef {
  taskId: string;
}

export interface CreateFile extends FileRef {
  /** document, documentPro, spreadsheet, presentation, table */
  type: string;
  /** Query `lang`; default zh-CN. */
  lang?: CreateLang;
  /** Body `contentKey` (optional, its meaning is not documented). */
  contentKey?: string;
}

export interface CopyFile extends FileRef {
  /** The integrator's id of the copy. */
  newFileId: string;
}

export interface History extends FileRef {
  pageSize?: number;
  /** Offset. */
  count?: number;
  /** 1 operation history, 2 edit history. */
  historyType?: 1 | 2;
}

/** Import source extensions per target type (the kit's table). */
export const IMPORT_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  document: ['docx', 'doc', 'md', 'txt'],
  documentPro: ['docx', 'doc', 'wps'],
  spreadsheet: ['xlsx', 'xls', 'csv', 'xlsm'],
  presentation: ['pptx', 'ppt'],
};

/** Export formats per document type (the kit's table). */
export const EXPORT_FORMATS: Readonly<Record<string, readonly string[]>> = {
  document: ['docx', 'md', 'jpg', 'pdf'],
  documentPro: ['docx', 'pdf', 'wps'],
  spreadsheet: ['xlsx'],
  presentation: ['pptx', 'pdf'],
};

export interface ImportFile extends FileRef {
  /** Target type. */
  type: string;
  fileUrl?: string;
  fileName?: string;
  /** v1 only: the bytes themselves instead of `fileUrl`. */
  file?: { name: string; bytes: Uint8Array };
  /** 1 (multipart, the default) or 2 (JSON, URL only). */
  version?: 1 | 2;
}

export interface ExportFile extends FileRef {
  /** docx, md, jpg, pdf, wps, xlsx, pptx (EXPORT_FORMATS). */
  format: string;
}

export interface CellRange extends FileRef {
  /** e.g. `Sheet1!A1:C3` */
  range: string;
}

export interface CellValues extends CellRange {
  values: unknown[][];
}

export interface DeleteRows extends FileRef {
  sheetName: string;
  index: number;
  count: number;
}

export interface AddSheet extends FileRef {
  name: string;
}

export interface ReadBookmarks extends FileRef {
  bookmarks: readonly string[];
}

export interface ReplaceBookmarks extends FileRef {
  replacements: ReadonlyArray<{ bookmark: string; value: string }>;
}

export const UPLOAD_BUCKETS = ['attachments', 'assets', 'avatar', 'images'] as const;

export interface UploadTokenRequest {
  files: ReadonlyArray<{ bucket: (typeof UPLOAD_BUCKETS)[number]; filename: string; fileGuid: string; fileSize: number; encrypt?: 'default' | '' }>;
}

export interface Upload {
  accessToken: string;
  download?: readonly string[];
  file: { name: string; bytes: Uint8Array };
}

export interface AiImport {
  knowledgeBaseGuid: string;
  /** `file` (uses fileGuid) or `url` (uses downloadUrl). */
  importType: 'file' | 'url';
  fileGuid?: string;
  /** document, documentPro, spreadsheet, presentation for `file`; pdf, rtf for `url`. */
  fileType: string;
  downloadUrl?: string;
  /** 1 answers 204; 2 answers a task id to follow. */
  version?: 1 | 2;
}

export interface AiDelete {
  knowledgeBaseGuid: string;
  fileGuid: string;
}
