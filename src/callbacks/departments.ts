import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { notFound } from '../http/errors.js';
import { pageQueryProperties, pageRequest } from '../http/paging.js';
import { DepartmentSummarySchema, errorResponses, UserSchema } from '../http/schemas.js';
import { directoryServiceFor, requireUserToken } from './callback-kit.js';
import { toUserBody } from './wire-shapes.js';

const DEPARTMENT_PAGE_SIZE = 20;

const DepartmentParams = Type.Object({
  departmentId: Type.String({ minLength: 1, maxLength: 256, description: 'a department id, or TEAM_{teamId} for the team root' }),
});

/**
 * Interface 4.3: one department, its direct children and its members, with `TEAM_{teamId}` as the
 * root (children = first-level departments, members = every team member). Only departments of the
 * viewer's own team are visible; others answer 404 like unknown ids.
 */
export const departmentRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  requireUserToken(app, context);
  const service = directoryServiceFor(context);
  const unknown = (id: string) => notFound(`no department ${id} in your team`, 'department_not_found');

  app.get(
    '/departments/:departmentId',
    {
      schema: {
        summary: 'A department with allMemberCount (distinct users of it and all its descendants)',
        params: DepartmentParams,
        response: { 200: DepartmentSummarySchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const department = await service.department(request.viewer, request.params.departmentId);
      if (!department) throw unknown(request.params.departmentId);
      return department;
    },
  );

  app.get(
    '/departments/:departmentId/children',
    {
      schema: {
        summary: 'The direct sub-departments, by name',
        params: DepartmentParams,
        response: { 200: Type.Array(DepartmentSummarySchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const children = await service.departmentChildren(request.viewer, request.params.departmentId);
      if (!children) throw unknown(request.params.departmentId);
      return children;
    },
  );

  app.get(
    '/departments/:departmentId/members',
    {
      schema: {
        summary: "The department's direct members by name, one page, with their total",
        params: DepartmentParams,
        querystring: Type.Object(pageQueryProperties(DEPARTMENT_PAGE_SIZE)),
        response: {
          200: Type.Object({ total: Type.Integer({ minimum: 0 }), members: Type.Array(UserSchema) }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { page, pageSize } = request.query;
      const members = await service.departmentMembers(request.viewer, request.params.departmentId, pageRequest(page, pageSize, DEPARTMENT_PAGE_SIZE));
      if (!members) throw unknown(request.params.departmentId);
      return { total: members.total, members: members.items.map(toUserBody) };
    },
  );
};
