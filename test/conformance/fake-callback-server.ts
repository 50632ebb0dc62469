import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { epochSeconds, verifyHs256 } from '../../src/conformance/jwt.js';

/**
 * A small, correct callback server written from the interface alone, so the kit can be shown to pass on it
 * and to fail, naming the rule, on copies of it with exactly one fault each. It knows nothing of
 * collab-host's code: an in-memory company, plain node:http.
 */

/** One deliberate fault each; see `startFakeServer`. */
export type Fault =
  | 'time-with-milliseconds'
  | 'user-without-team-guid'
  | 'editable-without-copyable'
  | 'wrong-is-manager'
  | 'members-paged-from-0'
  | 'wrong-page-count'
  | 'admin-accepts-unsigned'
  | 'events-answer-500'
  /** A strict reader: refuses an event without top-level fileId and userId (production DateMention, auto_mention). */
  | 'events-refuse-production'
  /** Acknowledges events but keeps none (GET /api/events does not list them). */
  | 'events-not-stored';

/** The fake's management key for `GET /api/events` (collab-host's listing, which the production checks read). */
export const FAKE_ADMIN_KEY = 'fake-admin-key-0123456789';

export const FAKE_APP = { appId: 'fake-app', appSecret: 'fake-app-secret-0123456789' };
export const FAKE_TEAM = { id: 't1', name: 'Acme' };
/** Each user's token is `tok-{userId}`. */
export const tokenOf = (userId: string): string => `tok-${userId}`;

type Role = 'viewer' | 'commenter' | 'editor' | 'manager';
const RANK: Record<Role, number> = { viewer: 1, commenter: 2, editor: 3, manager: 4 };

const DEPARTMENTS = [
  { id: 'd1', name: '研发部', parentId: null },
  { id: 'd2', name: '前端组', parentId: 'd1' },
  { id: 'd3', name: 'Web', parentId: 'd2' },
  { id: 'd4', name: 'Sales', parentId: null },
] as const;

const USERS = [
  { id: 'u1', name: '张三', departments: ['d2'] },
  { id: 'u2', name: '李雷', departments: ['d2', 'd4'] },
  { id: 'u3', name: '王小明', departments: ['d3'] },
  { id: 'u4', name: 'Alice', departments: ['d4'] },
  { id: 'u5', name: 'Bob', departments: [] },
  { id: 'u6', name: '韩梅梅', departments: ['d1'] },
  { id: 'u7', name: 'Carol', departments: ['d4'] },
].map((u) => ({ ...u, email: `${u.id}@example.com`, avatar: `https://avatars.example.com/${u.id}.png` }));

interface FakeFile {
  id: string;
  name: string;
  type: string;
  creatorId: string;
  createdAt: string;
  updatedAt: string;
  views?: number;
  grants: Record<string, Role>;
  copyRestricted?: boolean;
  ext?: string;
}

const FILES: FakeFile[] = [
  {
    id: 'f1',
    name: '季度计划',
    type: 'documentPro',
    creatorId: 'u1',
    createdAt: '2024-03-01T08:00:00Z',
    updatedAt: '2024-03-05T08:00:00Z',
    views: 3,
    grants: { u2: 'editor', u3: 'viewer' },
  },
  {
    id: 'f2',
    name: 'Budget sheet',
    type: 'spreadsheet',
    creatorId: 'u2',
    createdAt: '2024-03-01T08:00:00Z',
    updatedAt: '2024-03-04T08:00:00Z',
    grants: { u1: 'manager', u4: 'commenter', u3: 'editor' },
  },
  { id: 'f3', name: 'contract.docx', type: 'file', creatorId: 'u1', createdAt: '2024-03-01T08:00:00Z', updatedAt: '2024-03-03T08:00:00Z', grants: { u2: 'viewer' }, ext: 'docx' },
  {
    id: 'f4',
    name: 'Handbook',
    type: 'document',
    creatorId: 'u6',
    createdAt: '2024-03-01T08:00:00Z',
    updatedAt: '2024-03-02T08:00:00Z',
    grants: { u1: 'editor', u2: 'viewer' },
    copyRestricted: true,
  },
  { id: 'f5', name: 'Budget 2', type: 'spreadsheet', creatorId: 'u1', createdAt: '2024-02-01T08:00:00Z', updatedAt: '2024-02-02T08:00:00Z', grants: {} },
];

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface FakeServer {
  url: string;
  /** Events received, in order: the header kind and the body. */
  events: Array<{ kind: string; body: unknown }>;
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1, port 0, with the given faults. */
export async function startFakeServer(faults: Fault[] = []): Promise<FakeServer> {
  const has = (fault: Fault) => faults.includes(fault);
  const events: FakeServer['events'] = [];

  const roleOf = (file: FakeFile, userId: string): Role | null => (file.creatorId === userId ? 'manager' : (file.grants[userId] ?? null));
  const permissions = (file: FakeFile, userId: string) => {
    const role = roleOf(file, userId);
    const rank = role ? RANK[role] : 0;
    const editable = rank >= RANK.editor;
    const copyable = has('editable-without-copyable') ? !file.copyRestricted && rank > 0 : rank > 0 && (editable || !file.copyRestricted);
    return { readable: rank > 0, commentable: rank >= RANK.commenter, editable, copyable, exportable: rank > 0, manageable: rank >= RANK.manager };
  };
  const time = (text: string) => (has('time-with-milliseconds') ? text.replace('Z', '.000Z') : text);
  const fileBody = (file: FakeFile, userId: string, extra: Record<string, unknown> = {}) => ({
    id: file.id,
    name: file.name,
    type: file.type,
    creatorId: file.creatorId,
    createdAt: time(file.createdAt),
    updatedAt: time(file.updatedAt),
    ...(file.views !== undefined ? { views: file.views } : {}),
    permissions: permissions(file, userId),
    ...(file.type === 'file' ? { fullUrl: `https://oa.example.com/${file.id}` } : {}),
    ...extra,
  });
  const userBody = (u: (typeof USERS)[number]) => ({ id: u.id, name: u.name, avatar: u.avatar, email: u.email });
  const readable = (userId: string) => FILES.filter((f) => roleOf(f, userId) !== null);
  const descendants = (id: string): string[] => [id, ...DEPARTMENTS.filter((d) => d.parentId === id).flatMap((d) => descendants(d.id))];
  const allMembers = (id: string) => USERS.filter((u) => u.departments.some((d) => descendants(id).includes(d)));
  const ancestors = (id: string): Array<{ id: string; name: string }> => {
    const dept = DEPARTMENTS.find((d) => d.id === id);
    if (!dept?.parentId) return [];
    const parent = DEPARTMENTS.find((d) => d.id === dept.parentId) as (typeof DEPARTMENTS)[number];
    return [...ancestors(parent.id), { id: parent.id, name: parent.name }];
  };
  const deptSummary = (d: (typeof DEPARTMENTS)[number]) => ({ id: d.id, name: d.name, allMemberCount: allMembers(d.id).length });
  const pageFrom1 = <T>(items: T[], page: number, size: number): T[] => {
    const index = has('members-paged-from-0') ? page : Math.max(page, 1) - 1;
    return items.slice(index * size, index * size + size);
  };
  const wrapper = <T>(items: T[], page: number, pageSize: number) => ({
    count: has('wrong-page-count') ? items.length + 1 : items.length,
    page,
    pageSize,
    pageCount: Math.ceil(items.length / pageSize),
    results: items.slice(page * pageSize, page * pageSize + pageSize),
  });

  function viewer(request: IncomingMessage): string {
    const token = request.headers['x-platform-token'];
    const user = USERS.find((u) => tokenOf(u.id) === token);
    if (!user) throw new Refusal(401, token ? 'invalid token' : 'token required');
    return user.id;
  }

  function requireSignature(request: IncomingMessage, binding: { fileId: string; userId?: string }): void {
    const signature = request.headers['x-platform-signature'];
    if (typeof signature !== 'string') {
      if (has('admin-accepts-unsigned')) return;
      throw new Refusal(401, 'signature required');
    }
    const decoded = verifyHs256(signature, FAKE_APP.appSecret);
    if (!decoded.ok) throw new Refusal(401, decoded.reason);
    const { header, claims } = decoded;
    const now = epochSeconds();
    if (header.kid !== undefined && header.kid !== FAKE_APP.appId) throw new Refusal(401, 'kid');
    if (typeof claims.exp !== 'number' || claims.exp <= now) throw new Refusal(401, 'expired');
    if (typeof claims.iat === 'number' && Math.abs(claims.iat - now) > 300) throw new Refusal(401, 'iat');
    if (claims.fileId !== binding.fileId) throw new Refusal(403, 'other file');
    if (binding.userId !== undefined && claims.userId !== binding.userId) throw new Refusal(403, 'other user');
  }

  async function route(request: IncomingMessage, url: URL): Promise<unknown> {
    const method = request.method ?? 'GET';
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const q = (name: string) => url.searchParams.get(name);
    const num = (name: string, fallback: number) => (q(name) === null ? fallback : Number(q(name)));
    const body = method === 'POST' ? await readJson(request) : undefined;
    const file = (id: string | undefined) => {
      const found = FILES.find((f) => f.id === id);
      if (!found) throw new Refusal(404, 'no such file');
      return found;
    };
    const [a, b, c, d] = parts;

    if (method === 'POST' && a === 'events') {
      const kind = String(request.headers['x-platform-sdk-event'] ?? '');
      if (kind === 'FileContent' || kind === 'Collaborator') requireSignature(request, { fileId: String((body as { fileId?: unknown }).fileId) });
      else if (!(kind === 'System' && request.headers['x-platform-signature'])) viewer(request);
      if (has('events-answer-500')) throw new Refusal(500, 'internal');
      const record = body as { fileId?: unknown; userId?: unknown };
      if (has('events-refuse-production') && kind !== 'System' && (typeof record.fileId !== 'string' || typeof record.userId !== 'string'))
        throw new Refusal(400, 'fileId and userId are required');
      if (!has('events-not-stored')) events.push({ kind, body });
      return {};
    }
    if (method === 'GET' && a === 'api' && b === 'events') {
      if (request.headers.authorization !== `Bearer ${FAKE_ADMIN_KEY}`) throw new Refusal(401, 'admin key');
      return { items: events.filter((event) => event.kind === q('kind')).map((event) => ({ kind: event.kind, body: event.body })), nextCursor: null };
    }
    if (a === 'admin' && b === 'files' && c !== undefined) {
      const target = file(c);
      if (d === 'by-user-id') {
        const userId = q('userId') ?? '';
        requireSignature(request, { fileId: target.id, userId });
        return fileBody(target, userId, { fullUrl: undefined });
      }
      requireSignature(request, { fileId: target.id });
      return { ...fileBody(target, target.creatorId), fullUrl: undefined };
    }
    if (method === 'POST' && a === 'files' && c === 'url') {
      const target = file(b);
      requireSignature(request, { fileId: target.id });
      return { url: `https://oa.example.com/${target.id}` };
    }

    const me = viewer(request);
    const meUser = USERS.find((u) => u.id === me) as (typeof USERS)[number];
    if (a === 'users' && b === 'current' && c === 'info') {
      return { ...userBody(meUser), ...(has('user-without-team-guid') ? {} : { teamGuid: FAKE_TEAM.id }) };
    }
    if (a === 'users' && b === 'current' && c === 'team') return { ...FAKE_TEAM, memberCount: USERS.length };
    if (method === 'POST' && a === 'users' && b === 'batch') {
      const ids = (body as { ids?: unknown }).ids;
      if (!Array.isArray(ids)) throw new Refusal(400, 'ids required');
      return ids.flatMap((id) => USERS.filter((u) => u.id === id).map(userBody));
    }
    if (a === 'users' && b !== undefined) {
      const user = USERS.find((u) => u.id === b);
      if (!user) throw new Refusal(404, 'no such user');
      if (c === 'watermark') return { watermarks: [user.name, user.email] };
      if (c === 'department-paths') return user.departments.map((id) => [...ancestors(id), { id, name: DEPARTMENTS.find((x) => x.id === id)?.name }]);
      return userBody(user);
    }
    if (a === 'files' && b === undefined) {
      const order = q('orderBy') === 'created_at' ? 'createdAt' : 'updatedAt';
      const list = readable(me).sort((x, y) => y[order].localeCompare(x[order]));
      return list.slice(0, num('limit', 20)).map((f) => fileBody(f, me, { fullUrl: undefined }));
    }
    if (a === 'files' && c === 'collaborators') {
      const target = file(b);
      const ids = [target.creatorId, ...Object.keys(target.grants)];
      return ids.map((id) => {
        const user = USERS.find((u) => u.id === id) as (typeof USERS)[number];
        const flags = permissions(target, id);
        return { ...userBody(user), isManager: has('wrong-is-manager') ? flags.editable : flags.manageable };
      });
    }
    if (a === 'files' && b !== undefined) {
      const target = file(b);
      if (target.type === 'file') {
        return { id: target.id, name: target.name, type: 'file', permissions: permissions(target, me), downloadUrl: `https://files.example.com/${target.id}`, ext: target.ext };
      }
      return fileBody(target, me, { teamGuid: FAKE_TEAM.id });
    }
    if (a === 'teams' && b === FAKE_TEAM.id && c === 'members') {
      if (q('pagination') !== 'true') return USERS.map(userBody);
      return pageFrom1(USERS, num('page', 1), num('pageSize', 10)).map(userBody);
    }
    if (a === 'departments' && b !== undefined) {
      const root = b === `TEAM_${FAKE_TEAM.id}`;
      const dept = DEPARTMENTS.find((x) => x.id === b);
      if (!root && !dept) throw new Refusal(404, 'no such department');
      if (c === 'children') return DEPARTMENTS.filter((x) => x.parentId === (root ? null : b)).map(deptSummary);
      if (c === 'members') {
        const members = root ? USERS : USERS.filter((u) => u.departments.includes(b));
        return { total: members.length, members: pageFrom1(members, num('page', 1), num('pageSize', 20)).map(userBody) };
      }
      return root ? { id: b, name: FAKE_TEAM.name, allMemberCount: USERS.length } : deptSummary(dept as (typeof DEPARTMENTS)[number]);
    }
    if (a === 'search' && b === 'users' && c === 'recent')
      return USERS.filter((u) => u.id !== me)
        .slice(0, 3)
        .map(userBody);
    if (a === 'search' && b === 'files' && c === 'recent') return readable(me).map((f) => fileBody(f, me));
    if (method === 'POST' && a === 'search' && b === undefined) {
      const { fileId, keyword, page, pageSize, type } = body as Record<string, unknown>;
      if (typeof keyword !== 'string' || typeof type !== 'string' || typeof page !== 'number' || typeof pageSize !== 'number' || pageSize < 1) {
        throw new Refusal(400, 'bad search');
      }
      const target = file(String(fileId));
      const match = (name: string) => name.toLowerCase().includes(keyword.toLowerCase());
      const users = USERS.filter((u) => match(u.name));
      const answer: Record<string, unknown> = {};
      for (const token of type.split(',')) {
        if (token === 'file_name')
          answer.files = wrapper(
            readable(me)
              .filter((f) => match(f.name))
              .map((f) => fileBody(f, me)),
            page,
            pageSize,
          );
        if (token === 'recent_contact') answer.recentUsers = wrapper(users.filter((u) => u.id !== me).map(userBody), page, pageSize);
        if (token === 'collaborator') {
          const ids = [target.creatorId, ...Object.keys(target.grants)];
          answer.collaborators = wrapper(users.filter((u) => ids.includes(u.id)).map(userBody), page, pageSize);
        }
        if (token === 'team_member') answer.teamMembers = wrapper(users.map(userBody), page, pageSize);
        if (token === 'department') {
          const found = DEPARTMENTS.filter((x) => match(x.name)).map((x) => ({ ...deptSummary(x), parentDepartments: ancestors(x.id) }));
          answer.department = wrapper(found, page, pageSize);
        }
      }
      return answer;
    }
    throw new Refusal(404, `no route ${method} ${url.pathname}`);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    route(request, url).then(
      (body) => send(response, 200, body),
      (error: unknown) => {
        const status = error instanceof Refusal ? error.status : 500;
        send(response, status, { error: { code: String(status), message: error instanceof Error ? error.message : 'error' } });
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    events,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    throw new Refusal(400, 'invalid JSON');
  }
}
