import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { browseDirectory, CANDIDATE_CAP, type BrowseKind } from '../directory/directory-browse.js';
import { MAX_KEYWORD_CHARS } from '../directory/search-keyword.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';

/** A grant's role (also used by access-routes.ts). */
export const RoleSchema = Type.Union([Type.Literal('viewer'), Type.Literal('commenter'), Type.Literal('editor'), Type.Literal('manager')]);
const NamedNode = Type.Object({ id: Type.String(), name: Type.String() });
const TeamItem = NamedNode;
const DepartmentItem = Type.Object({ id: Type.String(), name: Type.String(), teamId: Type.String(), parentId: Type.Union([Type.String(), Type.Null()]) });
const UserItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  teamId: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean(),
  departments: Type.Array(NamedNode),
});
const FileItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  creatorId: Type.String(),
  teamId: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  updatedAt: TimeSchema,
  restrictions: Type.Object({ copy: Type.Boolean(), export: Type.Boolean() }),
  sharing: Type.Array(Type.Object({ principal: Type.String(), principalName: Type.Union([Type.String(), Type.Null()]), role: RoleSchema })),
});

const SEARCHES: Array<{ kind: BrowseKind; path: string; item: TSchema }> = [
  { kind: 'team', path: 'teams', item: TeamItem },
  { kind: 'department', path: 'departments', item: DepartmentItem },
  { kind: 'user', path: 'users', item: UserItem },
  { kind: 'file', path: 'files', item: FileItem },
];

const MemberCount = Type.Object({ memberCount: Type.Integer({ minimum: 0, description: 'active members (direct ones, for a department)' }) });
const SummarySchema = Type.Object({
  counts: Type.Object({ teams: Type.Integer(), departments: Type.Integer(), users: Type.Integer(), activeUsers: Type.Integer(), files: Type.Integer() }),
  teams: Type.Array(Type.Intersect([TeamItem, MemberCount])),
  departments: Type.Array(Type.Intersect([DepartmentItem, MemberCount])),
  departmentsTruncated: Type.Boolean(),
});

/**
 * Read-only directory views for the operator console (every team, not one viewer's scope):
 * `GET /api/directory/summary` (counts, teams, the department tree) and
 * `GET /api/directory/search/{teams|departments|users|files}?keyword=&limit=`, matched and ranked by the
 * @-search rules (pinyin and initials included). Files come with their grants.
 */
export const directoryBrowseRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const source = context.management.directoryBrowse;
  const common = { tags: ['management'], security: [{ adminKey: [] }] };

  app.get(
    '/directory/summary',
    { schema: { ...common, summary: 'Directory counts, teams and the department tree', response: { 200: SummarySchema, ...errorResponses(401, 404) } } },
    async () => source.summary(),
  );

  for (const search of SEARCHES) {
    app.get(
      `/directory/search/${search.path}`,
      {
        schema: {
          ...common,
          summary: `Search every ${search.kind} by name, e-mail, pinyin or initials (the @-search rules), best matches first`,
          querystring: Type.Object({
            keyword: Type.Optional(Type.String({ maxLength: MAX_KEYWORD_CHARS * 4, description: "'' lists by name" })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          }),
          response: {
            200: Type.Object({
              count: Type.Integer({ description: `matches among the first ${CANDIDATE_CAP} candidates by name` }),
              truncated: Type.Boolean({ description: 'more candidates than that: type more of the keyword' }),
              items: Type.Array(search.item),
            }),
            ...errorResponses(400, 401, 404),
          },
        },
      },
      async (request) => browseDirectory(source, { kind: search.kind, keyword: request.query.keyword ?? '', limit: request.query.limit ?? 50 }),
    );
  }
};
