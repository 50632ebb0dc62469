import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { explainAccess, PERMISSION_NAMES } from '../directory/access-explanation.js';
import { notFound } from '../http/errors.js';
import { errorResponses, PathNodeSchema, PermissionsSchema } from '../http/schemas.js';

import { RoleSchema } from './directory-browse-routes.js';

const GrantPathSchema = Type.Union([
  Type.Object({ kind: Type.Literal('creator'), role: Type.Literal('manager') }),
  Type.Object({ kind: Type.Literal('user'), role: RoleSchema }),
  Type.Object({
    kind: Type.Literal('department'),
    role: RoleSchema,
    department: PathNodeSchema,
    path: Type.Array(PathNodeSchema, { description: "from the granted department down to the user's own" }),
  }),
  Type.Object({ kind: Type.Literal('team'), role: RoleSchema, team: PathNodeSchema }),
]);
const RestrictionSchema = Type.Union([Type.Literal('restrictions.copy'), Type.Literal('restrictions.export'), Type.Null()]);

const ExplanationSchema = Type.Object({
  fileId: Type.String(),
  fileName: Type.String(),
  userId: Type.String(),
  userName: Type.String(),
  role: Type.Union([RoleSchema, Type.Null()]),
  permissions: PermissionsSchema,
  explanations: Type.Array(
    Type.Object({
      permission: Type.String({ enum: [...PERMISSION_NAMES] }),
      granted: Type.Boolean(),
      givenBy: Type.Array(GrantPathSchema),
      removedBy: RestrictionSchema,
    }),
  ),
  paths: Type.Array(GrantPathSchema),
  otherGrants: Type.Array(Type.Object({ principal: Type.String(), principalName: Type.Union([Type.String(), Type.Null()]), role: RoleSchema })),
  restrictions: Type.Object({ copy: Type.Boolean(), export: Type.Boolean() }),
  notes: Type.Array(Type.String()),
});

/**
 * `GET /api/access?userId=&fileId=`: the six permissions of a user on a file and, for each, the grant
 * paths that give it and the restriction that removes it (src/directory/access-explanation.ts).
 */
export const accessRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const facts = context.management.accessFacts;

  app.get(
    '/access',
    {
      schema: {
        summary: "Explain a user's permissions on a file: the grant path behind each, and the restriction that removes it",
        tags: ['management'],
        security: [{ adminKey: [] }],
        querystring: Type.Object({ userId: Type.String({ minLength: 1, maxLength: 255 }), fileId: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 200: ExplanationSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { userId, fileId } = request.query;
      const found = await facts.accessFacts(fileId, userId);
      if (found === 'file_not_found') throw notFound(`no file ${fileId}`, 'file_not_found');
      if (found === 'user_not_found') throw notFound(`no user ${userId}`, 'user_not_found');
      return explainAccess(found);
    },
  );
};
