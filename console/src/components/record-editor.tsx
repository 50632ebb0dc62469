import { useEffect, useState } from 'preact/hooks';
import { ApiError, requestTagged } from '../api.js';
import { Panel } from './common.js';

/** A top-level field of a record the editor changes; every other field is sent back as read. */
export interface EditableField {
  key: string;
  label: string;
  kind: 'text' | 'boolean';
  /** An optional field left empty is left out of the record (a required one is refused by the server). */
  optional?: boolean;
}

type Values = Record<string, string | boolean>;
type Status = { tone: 'ok'; text: string } | { tone: 'error'; text: string } | { tone: 'conflict' } | null;

const valuesOf = (record: Record<string, unknown>, fields: EditableField[]): Values =>
  Object.fromEntries(
    fields.map((field) => [field.key, field.kind === 'boolean' ? record[field.key] !== false : typeof record[field.key] === 'string' ? (record[field.key] as string) : '']),
  );

/** The record as read with the edited fields in place (an empty optional text field removed). */
function edited(record: Record<string, unknown>, fields: EditableField[], values: Values): Record<string, unknown> {
  const next: Record<string, unknown> = { ...record };
  for (const field of fields) {
    const value = values[field.key];
    if (field.kind === 'text' && field.optional === true && value === '') delete next[field.key];
    else next[field.key] = value;
  }
  return next;
}

/**
 * Edits one record of the management API (`GET`/`PUT {path}`): it keeps the ETag the record was read
 * with and sends it as `If-Match`, so a save never overwrites a change someone else made meanwhile. On
 * 412 the operator is told so and offered to reload the record (their edit is kept until they do).
 */
export function RecordEditor({ path, label, fields, onSaved, onClose }: { path: string; label: string; fields: EditableField[]; onSaved?: () => void; onClose: () => void }) {
  const [record, setRecord] = useState<Record<string, unknown> | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [values, setValues] = useState<Values>({});
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);

  const load = async () => {
    setStatus(null);
    try {
      const read = await requestTagged<Record<string, unknown>>('GET', path);
      setRecord(read.body);
      setEtag(read.etag);
      setValues(valuesOf(read.body, fields));
    } catch (failure) {
      setStatus({ tone: 'error', text: (failure as Error).message });
    }
  };
  useEffect(() => {
    setRecord(null);
    void load();
  }, [path]);

  const save = async () => {
    if (record === null) return;
    setBusy(true);
    setStatus(null);
    try {
      const saved = await requestTagged<Record<string, unknown>>('PUT', path, edited(record, fields, values), etag === null ? {} : { 'if-match': etag });
      setRecord(saved.body);
      setEtag(saved.etag);
      setValues(valuesOf(saved.body, fields));
      setStatus({ tone: 'ok', text: 'Saved.' });
      onSaved?.();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 412) setStatus({ tone: 'conflict' });
      else setStatus({ tone: 'error', text: failure instanceof ApiError ? `${failure.code}: ${failure.message}` : String(failure) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Panel
      title={`Edit ${label}`}
      actions={
        <button type="button" class="quiet" onClick={onClose}>
          Close
        </button>
      }
    >
      {record === null ? (
        status?.tone === 'error' ? (
          <p class="error">{status.text}</p>
        ) : (
          <p class="muted">Loading…</p>
        )
      ) : (
        <form
          class="filters record-editor"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          {fields.map((field) =>
            field.kind === 'boolean' ? (
              <label key={field.key} class="inline">
                <input type="checkbox" checked={values[field.key] === true} onChange={(e) => setValues({ ...values, [field.key]: (e.target as HTMLInputElement).checked })} />
                <span>{field.label}</span>
              </label>
            ) : (
              <label key={field.key}>
                <span>{field.label}</span>
                <input value={String(values[field.key] ?? '')} onInput={(e) => setValues({ ...values, [field.key]: (e.target as HTMLInputElement).value })} />
              </label>
            ),
          )}
          <button type="submit" class="primary" disabled={busy}>
            Save
          </button>
        </form>
      )}
      {status?.tone === 'ok' && (
        <p class="ok" role="status">
          {status.text}
        </p>
      )}
      {status?.tone === 'error' && record !== null && (
        <p class="error" role="alert">
          {status.text}
        </p>
      )}
      {status?.tone === 'conflict' && (
        <div class="error conflict" role="alert">
          <p>Someone else changed this {label} after you opened it, so your change was not saved (nothing was overwritten).</p>
          <p>
            <button type="button" onClick={() => void load()}>
              Reload their version
            </button>{' '}
            <span class="muted">then make your change again.</span>
          </p>
        </div>
      )}
    </Panel>
  );
}
