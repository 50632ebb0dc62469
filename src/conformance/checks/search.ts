import type { Check, CheckContext } from '../check.js';
import type { HttpAnswer } from '../http-client.js';
import { isRecord } from '../jwt.js';
import { query, seg } from '../probe.js';
import { FILE, SEARCH_DEPARTMENT, USER, arrayOf, nonEmpty, pageWrapper, type Shape } from '../shapes.js';
import { rootId, walkDepartments } from './common.js';

/** 4.5: each `type` token and the response key it selects. */
export const SEARCH_KEYS = {
  file_name: 'files',
  recent_contact: 'recentUsers',
  collaborator: 'collaborators',
  team_member: 'teamMembers',
  department: 'department',
} as const;
export type SearchToken = keyof typeof SEARCH_KEYS;
const TOKENS = Object.keys(SEARCH_KEYS) as SearchToken[];

/** 4.4/4.5: a file in search results; third-party files carry `fullUrl`. */
const SEARCH_FILE: Shape = (value, where, problems) => {
  FILE(value, where, problems);
  if (isRecord(value) && value.type === 'file') nonEmpty(value.fullUrl, `${where}.fullUrl (type file)`, problems);
};

const ELEMENT: Record<SearchToken, Shape> = {
  file_name: SEARCH_FILE,
  recent_contact: USER,
  collaborator: USER,
  team_member: USER,
  department: SEARCH_DEPARTMENT,
};

/** `POST /search` as the user; cached, so checks asking the same question share the answer. */
export function search(c: CheckContext, tokens: SearchToken[], keyword: string, page: number, pageSize: number): Promise<HttpAnswer> {
  const body = { fileId: c.fileId(), keyword, page, pageSize, type: tokens.join(',') };
  return c.probe.read('/search', { method: 'POST', body });
}

/** A keyword likely to find something: the first character of the user's name. */
function userKeyword(c: CheckContext): string {
  return [...c.found.userName][0] ?? '';
}

interface Wrapper {
  count: number;
  page: number;
  pageSize: number;
  pageCount: number;
  results: unknown[];
}

/** The wrapper under the token's key, shape-checked; undefined (with a problem) when absent or malformed. */
function wrapperOf(c: CheckContext, answer: HttpAnswer, token: SearchToken, label: string): Wrapper | undefined {
  const body = c.ok(answer);
  if (body === undefined) return undefined;
  if (!isRecord(body)) {
    c.fail(`${label}: expected an object of result keys, got ${JSON.stringify(body).slice(0, 60)}`);
    return undefined;
  }
  const key = SEARCH_KEYS[token];
  if (body[key] === undefined) {
    c.fail(`${label}: type "${token}" was asked for but the response has no "${key}" key (keys: ${Object.keys(body).join(', ') || 'none'})`);
    return undefined;
  }
  return c.shape(pageWrapper(ELEMENT[token]), body[key], `${label}.${key}`) ? (body[key] as Wrapper) : undefined;
}

/** 2.9 arithmetic of one wrapper answered for `page` (0-based). */
function wrapperProblems(w: Wrapper, page: number, label: string): string[] {
  const problems: string[] = [];
  const say = (text: string) =>
    problems.push(`${label} (count ${w.count}, page ${w.page}, pageSize ${w.pageSize}, pageCount ${w.pageCount}, ${w.results.length} results): ${text}`);
  if (w.page !== page) say(`page ${w.page} but page ${page} was asked for (the first page is 0)`);
  if (w.pageSize < 1) return (say('pageSize must be at least 1'), problems);
  const pageCount = Math.ceil(w.count / w.pageSize);
  if (w.pageCount !== pageCount) say(`pageCount must be ceil(count / pageSize) = ${pageCount}`);
  if (w.results.length > w.pageSize) say('more results than pageSize');
  if (page < pageCount - 1 && w.results.length !== w.pageSize) say(`a page before the last must hold pageSize results`);
  if (page === pageCount - 1 && w.results.length !== w.count - page * w.pageSize) {
    say(`the last page must hold count - page * pageSize = ${w.count - page * w.pageSize} results`);
  }
  if (page >= pageCount && w.results.length !== 0) say('a page past the last must be empty');
  return problems;
}

const idOf = (item: unknown): string => (isRecord(item) && typeof item.id === 'string' ? item.id : JSON.stringify(item));

/** The (token, keyword) with the most results, at least three, among likely keywords; undefined if none. */
async function pageableSearch(c: CheckContext): Promise<{ token: SearchToken; keyword: string; all: string[] } | undefined> {
  const names: string[] = [c.found.userName];
  const members = c.found.teamId !== undefined ? await c.probe.read(`/teams/${seg(c.found.teamId)}/members${query({ pagination: false })}`) : undefined;
  if (members && Array.isArray(members.body)) for (const m of members.body.slice(0, 30)) if (isRecord(m) && typeof m.name === 'string') names.push(m.name);
  const keywords = ['', ...new Set(names.map((n) => [...n][0] ?? '').filter((k) => k !== ''))].slice(0, 6);
  let best: { token: SearchToken; keyword: string; all: string[] } | undefined;
  for (const token of ['team_member', 'file_name'] as SearchToken[]) {
    for (const keyword of keywords) {
      const answer = await search(c, [token], keyword, 0, 50);
      const body = answer.status === 200 && isRecord(answer.body) ? answer.body[SEARCH_KEYS[token]] : undefined;
      if (!isRecord(body) || !Array.isArray(body.results)) continue;
      if (body.results.length >= 3 && (!best || body.results.length > best.all.length)) best = { token, keyword, all: body.results.map(idOf) };
    }
    if (best) return best;
  }
  return best;
}

/** Parts 4.4, 4.5, 2.9 and 4.6: the @-mention searches. */
export const searchChecks: Check[] = [
  {
    id: 'search.recent-users',
    group: 'search',
    section: '4.4',
    title: 'GET /search/users/recent?fileId answers an array of User (possibly empty)',
    async run(c) {
      c.shape(arrayOf(USER), c.ok(await c.probe.read(`/search/users/recent${query({ fileId: c.fileId() })}`)), 'recent users');
    },
  },
  {
    id: 'search.recent-files',
    group: 'search',
    section: '4.4',
    title: 'GET /search/files/recent?fileId answers an array of File; a type "file" entry carries fullUrl',
    async run(c) {
      c.shape(arrayOf(SEARCH_FILE), c.ok(await c.probe.read(`/search/files/recent${query({ fileId: c.fileId() })}`)), 'recent files');
    },
  },
  {
    id: 'search.type-keys',
    group: 'search',
    section: '4.5',
    title: 'POST /search: each type token answers under its key (file_name>files, recent_contact>recentUsers, …); kinds not asked for are not searched',
    async run(c) {
      const keyword = userKeyword(c);
      for (const token of TOKENS) {
        const answer = await search(c, [token], keyword, 0, 6);
        const label = `POST /search type=${token}`;
        if (!wrapperOf(c, answer, token, label) || !isRecord(answer.body)) continue;
        for (const other of TOKENS) {
          if (other === token) continue;
          const value = answer.body[SEARCH_KEYS[other]];
          const empty = value === undefined || (Array.isArray(value) && value.length === 0) || (isRecord(value) && Array.isArray(value.results) && value.results.length === 0);
          if (!empty) c.fail(`${label}: "${SEARCH_KEYS[other]}" holds results although "${other}" was not asked for`);
        }
      }
      const all = await search(c, TOKENS, keyword, 0, 6);
      for (const token of TOKENS) wrapperOf(c, all, token, `POST /search type=${TOKENS.join(',')}`);
    },
  },
  {
    id: 'search.page-wrapper',
    group: 'search',
    section: '2.9',
    title: 'page wrappers add up: page as asked (from 0), pageCount = ceil(count / pageSize), full pages before the last, the rest on the last',
    async run(c) {
      const keyword = userKeyword(c);
      const asked: Array<{ tokens: SearchToken[]; keyword: string; page: number; pageSize: number }> = [
        { tokens: TOKENS, keyword, page: 0, pageSize: 6 },
        ...TOKENS.map((token) => ({ tokens: [token], keyword, page: 0, pageSize: 6 })),
      ];
      const pageable = await pageableSearch(c);
      if (pageable) {
        const pages = Math.ceil(pageable.all.length / 2);
        for (const page of [0, 1, pages - 1, pages]) asked.push({ tokens: [pageable.token], keyword: pageable.keyword, page, pageSize: 2 });
      }
      for (const { tokens, keyword: text, page, pageSize } of asked) {
        const answer = await search(c, tokens, text, page, pageSize);
        for (const token of tokens) {
          const label = `POST /search type=${tokens.join(',')} keyword=${JSON.stringify(text)} page=${page} pageSize=${pageSize}: ${SEARCH_KEYS[token]}`;
          const wrapper = wrapperOf(c, answer, token, label);
          if (wrapper) for (const problem of wrapperProblems(wrapper, page, label)) c.fail(problem);
        }
      }
    },
  },
  {
    id: 'search.paging',
    group: 'search',
    section: '4.5',
    title: 'POST /search paged with a small pageSize: pages 0, 1, … hold every result of one large page once, none twice',
    async run(c) {
      const pageable = await pageableSearch(c);
      if (!pageable) return c.skip('no search found three or more results to page through');
      const { token, keyword, all } = pageable;
      const pageSize = 2;
      const seen: string[] = [];
      for (let page = 0; page <= Math.ceil(all.length / pageSize); page++) {
        const answer = await search(c, [token], keyword, page, pageSize);
        const wrapper = wrapperOf(c, answer, token, `POST /search type=${token} page=${page} pageSize=${pageSize}`);
        if (!wrapper) return;
        seen.push(...wrapper.results.map(idOf));
      }
      const label = `${SEARCH_KEYS[token]} for ${JSON.stringify(keyword)}`;
      const duplicates = [...new Set(seen.filter((id, index) => seen.indexOf(id) !== index))];
      if (duplicates.length > 0) c.fail(`${label}: on more than one page: ${duplicates.slice(0, 5).join(', ')}`);
      const missing = all.filter((id) => !seen.includes(id));
      if (missing.length > 0) c.fail(`${label}: ${missing.length} of ${all.length} results of the large page appear on no small page (${missing.slice(0, 5).join(', ')})`);
      const extra = [...new Set(seen)].filter((id) => !all.includes(id));
      if (extra.length > 0 && all.length < 50) c.fail(`${label}: the small pages hold results the large page lacks (${extra.slice(0, 5).join(', ')})`);
    },
  },
  {
    id: 'search.department-parents',
    group: 'search',
    section: '4.6',
    title: 'department results: parentDepartments lists the ancestors top-down without the team level; [] for a first-level one',
    async run(c) {
      const nodes = await walkDepartments(c, c.teamId());
      if (nodes.size === 0) return c.skip('the team has no departments');
      const depth = (id: string): number => {
        let d = 0;
        for (let node = nodes.get(id); node?.parentId; node = nodes.get(node.parentId)) d++;
        return d;
      };
      const sorted = [...nodes.values()].sort((a, b) => depth(b.id) - depth(a.id));
      const picks = [...new Set([sorted[0], sorted.find((n) => n.parentId === null), sorted.find((n) => depth(n.id) === 1)])].filter((n) => n !== undefined);
      let judged = 0;
      for (const pick of picks) {
        const answer = await search(c, ['department'], pick.name, 0, 20);
        const wrapper = wrapperOf(c, answer, 'department', `POST /search type=department keyword=${JSON.stringify(pick.name)}`);
        if (!wrapper) continue;
        for (const result of wrapper.results as Array<{ id: string; parentDepartments?: Array<{ id: string; name: string }> }>) {
          if (result.parentDepartments === undefined) continue;
          const given = result.parentDepartments.map((p) => p.id);
          if (given.some((id) => id.startsWith('TEAM_') || id === rootId(c.found.teamId ?? ''))) {
            c.fail(`department ${result.id}: parentDepartments ${JSON.stringify(given)} includes the team level`);
            continue;
          }
          if (!nodes.has(result.id)) continue;
          const expected: string[] = [];
          for (let node = nodes.get(result.id); node?.parentId; node = nodes.get(node.parentId)) expected.unshift(node.parentId);
          judged++;
          if (JSON.stringify(given) !== JSON.stringify(expected)) {
            c.fail(`department ${result.id}: parentDepartments ${JSON.stringify(given)}, expected ${JSON.stringify(expected)} (ancestors from the first level down)`);
          }
        }
      }
      if (judged === 0 && c.problems.length === 0) return c.skip('no department result carried parentDepartments (it may be omitted)');
    },
  },
];
