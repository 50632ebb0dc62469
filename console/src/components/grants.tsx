import type { FileItem, GrantPath } from '../types.js';

const KIND_LABEL: Record<string, string> = { user: 'user', department: 'dept', team: 'team' };

/** A file's grants as chips: "dept 研发中心 · editor". */
export function Grants({ sharing }: { sharing: FileItem['sharing'] }) {
  if (sharing.length === 0) return <span class="muted">no grants</span>;
  return (
    <span class="chips">
      {sharing.map((grant) => {
        const [kind = '', id = ''] = grant.principal.split(/:(.*)/s);
        return (
          <span key={grant.principal} class={`chip ${kind}`} title={grant.principal}>
            {KIND_LABEL[kind] ?? kind} {grant.principalName ?? id} · {grant.role}
          </span>
        );
      })}
    </span>
  );
}

/** One grant path in words: how a role reaches the user. */
export function PathText({ path }: { path: GrantPath }) {
  switch (path.kind) {
    case 'creator':
      return <span>creator of the file (always manager)</span>;
    case 'user':
      return <span>direct grant: {path.role}</span>;
    case 'team':
      return (
        <span>
          team <strong>{path.team.name}</strong>: {path.role}
        </span>
      );
    case 'department':
      return (
        <span>
          department <strong>{path.department.name}</strong>: {path.role}
          {path.path.length > 1 ? <span class="muted"> — via {path.path.map((node) => node.name).join(' › ')}</span> : <span class="muted"> — their own department</span>}
        </span>
      );
  }
}
