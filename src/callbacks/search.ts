import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { SEARCH_KINDS } from '../directory/search-kinds.js';
import { MAX_KEYWORD_CHARS } from '../directory/search-keyword.js';
import { DEFAULT_SEARCH_PAGE_SIZE, MAX_SEARCH_PAGE_SIZE, SEARCH_COUNT_CAP, searchPage, searchPaging, type SearchPage } from '../directory/search-page.js';
import { Counter } from 'prom-client';
import { MentionSearch, RECENT_LIST_SIZE, type MentionSearchResults } from '../directory/search-service.js';
import { errorResponses, FileSummarySchema, PathNodeSchema, UserSchema } from '../http/schemas.js';
import { requireUserToken } from './callback-kit.js';
import { toFileSummary, toUserBody } from './wire-shapes.js';

const SearchBodySchema = Type.Object({
  type: Type.String({
    maxLength: 500,
    description: `comma-separated kinds: ${Object.keys(SEARCH_KINDS).join(', ')}; unknown tokens are ignored`,
  }),
  keyword: Type.String({ default: '', maxLength: 1000, description: `matched on its first ${MAX_KEYWORD_CHARS} characters; '' lists the most relevant items` }),
  fileId: Type.Optional(Type.String({ maxLength: 256, description: 'the file the search comes from (collaborators, recent contacts)' })),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'from 0' }),
  pageSize: Type.Integer({
    minimum: 1,
    default: DEFAULT_SEARCH_PAGE_SIZE,
    description: `default ${DEFAULT_SEARCH_PAGE_SIZE}; above ${MAX_SEARCH_PAGE_SIZE} it is served as ${MAX_SEARCH_PAGE_SIZE}`,
  }),
});

/** The search page wrapper (interface 2.9) around one kind of result. */
const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    count: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 0 }),
    pageSize: Type.Integer({ minimum: 1 }),
    pageCount: Type.Integer({ minimum: 0 }),
    results: Type.Array(item),
    countCapped: Type.Optional(
      Type.Literal(true, { description: `present when more may match than count says: past ${SEARCH_COUNT_CAP}, or a keyword so common that only its first matches were ranked` }),
    ),
  });

const SearchDepartmentSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  allMemberCount: Type.Integer({ minimum: 0 }),
  parentDepartments: Type.Array(PathNodeSchema, { description: 'ancestors top-down, team level left out; [] for a first-level department' }),
});

const SearchResponseSchema = Type.Object({
  files: pageOf(FileSummarySchema),
  recentUsers: pageOf(UserSchema),
  collaborators: pageOf(UserSchema),
  teamMembers: pageOf(UserSchema),
  department: pageOf(SearchDepartmentSchema),
});

const RecentQuery = Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 256, description: 'the file the list is asked from' }) });

/**
 * A guest's search (docs/sharing.md): every kind answers an empty page, so no directory member, team or
 * department is shown; a guest @-mentions nobody from the list, and their events still notify those named.
 */
function emptySearch(body: { page?: number; pageSize?: number }) {
  const empty = () => searchPage<never>(searchPaging(body.page, body.pageSize), 0, []);
  return { files: empty(), recentUsers: empty(), collaborators: empty(), teamMembers: empty(), department: empty() };
}

function mapPage<A, B>(page: SearchPage<A>, shape: (item: A) => B): SearchPage<B> {
  return { ...page, results: page.results.map(shape) };
}

/**
 * Interface 4.4 and 4.5, the @-mention drop-down: `POST /search` and the two recent lists. What each
 * kind returns and how it is ranked: README "@-mention search" and src/directory/search-port.ts.
 */
export const searchRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  requireUserToken(app, context);
  const search = new MentionSearch(context.directory);
  const countCapped = cappedCounter(context);
  const fileShape = { fileUrlTemplate: context.config.fileUrlTemplate };

  app.post(
    '/search',
    {
      config: { guests: true },
      schema: {
        summary: 'Keyword search over files, related users, collaborators, team members and departments (one page per kind; a guest: every kind empty)',
        body: SearchBodySchema,
        response: { 200: SearchResponseSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      if (request.guest) return emptySearch(request.body);
      const found = await search.search(request.viewer, request.body);
      countCapped(found);
      return {
        files: mapPage(found.files, (access) => toFileSummary(access, fileShape)),
        recentUsers: mapPage(found.recentUsers, toUserBody),
        collaborators: mapPage(found.collaborators, toUserBody),
        teamMembers: mapPage(found.teamMembers, toUserBody),
        department: found.department,
      };
    },
  );

  app.get(
    '/search/users/recent',
    {
      config: { guests: true },
      schema: {
        summary: `The users most related to the current user and the file (at most ${RECENT_LIST_SIZE}; a guest: none)`,
        querystring: RecentQuery,
        response: { 200: Type.Array(UserSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => (request.guest ? [] : (await search.recentUsers(request.viewer, request.query.fileId)).map(toUserBody)),
  );

  app.get(
    '/search/files/recent',
    {
      config: { guests: true },
      schema: {
        summary: `The files the current user worked on most recently and may read, then recently updated ones (at most ${RECENT_LIST_SIZE}; a guest: none)`,
        querystring: RecentQuery,
        response: { 200: Type.Array(FileSummarySchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => (request.guest ? [] : (await search.recentFiles(request.viewer, request.query.fileId)).map((access) => toFileSummary(access, fileShape))),
  );
};

/**
 * `collab_host_search_counts_capped_total{kind}`: searches whose count of one kind reached the cap
 * (SEARCH_COUNT_CAP, 1,000: `countCapped` in the answer). Many of them: keywords too broad for the lists.
 */
function cappedCounter(context: AppContext): (found: MentionSearchResults) => void {
  const capped = new Counter({
    name: 'collab_host_search_counts_capped_total',
    help: `Searches whose count of matches of one kind was capped at ${SEARCH_COUNT_CAP} (countCapped), by kind`,
    labelNames: ['kind'] as const,
    registers: [context.metrics.registry],
  });
  return (found) => {
    for (const [kind, page] of Object.entries(found)) if (page.countCapped) capped.inc({ kind });
  };
}
