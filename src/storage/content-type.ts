/** Content types of the extensions third-party files commonly have; anything else is served as bytes. */
const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
  json: 'application/json',
  xml: 'application/xml',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  rtf: 'application/rtf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  zip: 'application/zip',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
};

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** The Content-Type for a file extension (without a dot, any case). */
export function contentTypeForExtension(ext: string | null | undefined): string {
  if (!ext) return DEFAULT_CONTENT_TYPE;
  return BY_EXTENSION[ext.toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}

/** The extension of a file name or path, without the dot, or null. */
export function extensionOf(name: string): string | null {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(name);
  return match ? match[1]!.toLowerCase() : null;
}

/**
 * The media type kept with stored bytes (an upload, a snapshot's `contentFile`, a platform export): the one
 * given, unless there is none or it is the generic `application/octet-stream`; else the file's extension
 * (`ext`, or that of the first name that has one).
 */
export function storedContentType(given: string | undefined, ext: string | null, ...names: string[]): string {
  if (given !== undefined && given !== DEFAULT_CONTENT_TYPE) return given;
  return contentTypeForExtension(ext ?? names.map(extensionOf).find((found) => found !== null) ?? null);
}
