/** The name a stored file is downloaded under: the platform picks its previewer by the extension. */
export function downloadName(file: { name: string; ext: string | null }): string {
  const ext = file.ext?.replace(/^\.+/, '');
  return ext && !file.name.toLowerCase().endsWith(`.${ext.toLowerCase()}`) ? `${file.name}.${ext}` : file.name;
}

/** `attachment` with an ASCII fallback `filename` and the exact name as RFC 5987 `filename*`. */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
