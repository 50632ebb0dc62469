import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { asUser } from '../helpers/app.js';

export interface Wrapper<T = Record<string, unknown>> {
  count: number;
  page: number;
  pageSize: number;
  pageCount: number;
  results: T[];
  countCapped?: true;
}

export interface SearchBody {
  files: Wrapper<{ id: string; name: string; type: string; fullUrl?: string; permissions: Record<string, boolean> }>;
  recentUsers: Wrapper<{ id: string; name: string; email: string; avatar: string }>;
  collaborators: Wrapper<{ id: string; name: string; email: string; avatar: string }>;
  teamMembers: Wrapper<{ id: string; name: string; email: string; avatar: string }>;
  department: Wrapper<{ id: string; name: string; allMemberCount: number; parentDepartments: Array<{ id: string; name: string }> }>;
}

/** POST /search as the user; asserts a 200 and returns the body. */
export async function search(app: FastifyInstance, userId: string, body: Record<string, unknown>): Promise<SearchBody> {
  const response = await app.inject({ method: 'POST', url: '/search', headers: asUser(userId), payload: body });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<SearchBody>();
}

export const ids = (wrapper: Wrapper<{ id: string }>) => wrapper.results.map((item) => item.id);

export const ALL_KINDS = 'file_name,recent_contact,collaborator,team_member,department';
