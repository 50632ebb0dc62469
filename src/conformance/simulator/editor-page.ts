import { brandHeaders } from '../headers.js';
import { callHttp, HttpFailure, type HttpAnswer } from '../http-client.js';
import { isRecord } from '../jwt.js';

/** One callback the editor made while opening, and what came back. */
export interface CallbackTrace {
  call: string;
  status: number | 'no answer';
  detail?: string;
}

/** What the simulated editor learned when opening a file (the calls the platform makes on open). */
export interface EditorView {
  fileId: string;
  endpoint: string | undefined;
  /** Set when the editor cannot open the file; the page shows it instead of the document. */
  error?: string;
  /** A remark that does not stop the editor (for example a file this simulator did not create). */
  notice?: string;
  file?: Record<string, unknown>;
  user?: Record<string, unknown>;
  watermarks?: string[];
  calls: CallbackTrace[];
}

/**
 * Opens a file as the editor would: `GET /files/{fileId}` and `GET /users/current/info` with the token, then
 * the user's watermark. The calls are made by the simulator's server, as the real platform makes them
 * server to server, so the integrator needs no CORS for this page. Like the platform (5.5, 7.1), a failed
 * current-user call stops the opening; it never continues as an anonymous user.
 */
export async function openInEditor(options: { endpoint: string | undefined; fileId: string; token: string; brand?: string; timeoutMs?: number }): Promise<EditorView> {
  const { endpoint, fileId, token } = options;
  const view: EditorView = { fileId, endpoint, calls: [] };
  // 7.2: the platform's own words when the application's callback address is missing or malformed.
  if (!endpoint) return { ...view, error: 'endpoint_url should be configured before use' };
  if (!/^https?:\/\//.test(endpoint)) return { ...view, error: 'endpoint_url must start with http(s)://' };
  if (!fileId) return { ...view, error: 'fileId is required' };
  if (!token) return { ...view, error: 'token is required' };

  const headers = { [brandHeaders(options.brand).token]: token, [brandHeaders(options.brand).credentialType]: '0' };
  const call = async (path: string): Promise<HttpAnswer | undefined> => {
    try {
      const answer = await callHttp(endpoint, path, { headers }, options.timeoutMs ?? 5000);
      view.calls.push({ call: `GET ${path}`, status: answer.status, ...(answer.status === 200 ? {} : { detail: answer.text.slice(0, 200) }) });
      return answer;
    } catch (error) {
      view.calls.push({ call: `GET ${path}`, status: 'no answer', detail: error instanceof HttpFailure ? error.message : String(error) });
      return undefined;
    }
  };

  const [fileAnswer, userAnswer] = await Promise.all([call(`/files/${encodeURIComponent(fileId)}`), call('/users/current/info')]);
  if (userAnswer?.status !== 200 || !isRecord(userAnswer.body)) {
    return { ...view, error: `the current-user callback failed (${userAnswer?.status ?? 'no answer'}): the editor stops and does not continue anonymously` };
  }
  view.user = userAnswer.body;
  if (fileAnswer?.status !== 200 || !isRecord(fileAnswer.body)) return { ...view, error: `GET /files/${fileId} failed (${fileAnswer?.status ?? 'no answer'})` };
  view.file = fileAnswer.body;
  const permissions = isRecord(view.file.permissions) ? view.file.permissions : {};
  if (permissions.readable !== true) return { ...view, error: 'the user may not read this file (permissions.readable is not true)' };

  const userId = typeof view.user.id === 'string' ? view.user.id : '';
  const watermark = await call(`/users/${encodeURIComponent(userId)}/watermark`);
  if (watermark?.status === 200 && isRecord(watermark.body) && Array.isArray(watermark.body.watermarks)) {
    view.watermarks = watermark.body.watermarks.filter((line): line is string => typeof line === 'string');
  }
  return view;
}

const escape = (text: unknown): string =>
  String(text ?? '').replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string);

/** The six permissions, then the kit's nine finer keys (platform-api.md §6.8), as the editor reads them. */
const FLAGS = [
  'readable',
  'commentable',
  'editable',
  'copyable',
  'exportable',
  'manageable',
  'lockable',
  'unlockable',
  'formFillable',
  'copyablePasteClipboard',
  'attachmentCopyable',
  'cutable',
  'attachmentPreviewable',
  'attachmentDownloadable',
  'imageDownloadable',
];

/** The page: title, user, permissions, watermark and the callbacks made; every value escaped. */
export function renderEditorPage(view: EditorView): string {
  const file = view.file ?? {};
  const user = view.user ?? {};
  const permissions = isRecord(file.permissions) ? file.permissions : {};
  const body: string[] = [];
  if (view.notice) body.push(`<p class="notice">${escape(view.notice)}</p>`);
  if (view.error) {
    body.push(`<p class="error" id="error">${escape(view.error)}</p>`);
  } else {
    body.push(
      `<h1 id="title">${escape(file.name)}</h1>`,
      `<p>type <code>${escape(file.type)}</code>, file <code>${escape(view.fileId)}</code>${file.teamGuid ? `, team <code>${escape(file.teamGuid)}</code>` : ''}</p>`,
      `<p id="user">Opened by <strong>${escape(user.name)}</strong> (<code>${escape(user.id)}</code>, ${escape(user.email)}${user.teamGuid ? `, team <code>${escape(user.teamGuid)}</code>` : ''})</p>`,
      '<table id="permissions"><tr><th>permission</th><th>value</th></tr>',
      ...FLAGS.map((flag) => `<tr><td>${flag}</td><td class="${permissions[flag] === true ? 'yes' : 'no'}">${escape(permissions[flag] ?? 'absent')}</td></tr>`),
      '</table>',
      `<div id="watermark">${(view.watermarks ?? []).map((line) => `<div>${escape(line)}</div>`).join('') || '<em>no watermark</em>'}</div>`,
    );
  }
  body.push(
    '<h2>Callbacks made</h2><ul id="calls">',
    ...view.calls.map((trace) => `<li><code>${escape(trace.call)}</code> &rarr; ${escape(trace.status)}${trace.detail ? ` <small>${escape(trace.detail)}</small>` : ''}</li>`),
    '</ul>',
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(file.name ?? 'editor')} · collab-host simulator</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; }
.error { color: #a00; font-weight: bold; } .notice { color: #850; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .2rem .6rem; text-align: left; }
.yes { color: #070; } .no { color: #a00; }
#watermark { margin-top: 1rem; color: #999; font-style: italic; }
</style></head>
<body>
<p><small>collab-host simulator · callback server <code>${escape(view.endpoint ?? 'not configured')}</code></small></p>
${body.join('\n')}
</body></html>
`;
}
