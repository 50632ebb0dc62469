import { randomUUID } from 'node:crypto';
import type { DepartmentRecord } from '../../directory-changes/records.js';
import type { ScimResourceRow } from '../../store/directory-writes/scim-resources.js';
import type { DirectoryChange } from '../../directory-changes/directory-changes.js';
import {
  applyChange,
  assertExternalIdFree,
  checkIfMatch,
  equalityOf,
  listPage,
  metaOf,
  missingTeam,
  nowText,
  versionIn,
  versionOf,
  type ScimContext,
  type ScimDocument,
  type ScimObject,
} from './scim-context.js';
import { assertStorable } from './scim-input.js';
import {
  asScimProblem,
  mapInSlices,
  matchFilter,
  normalisePatch,
  normaliseResource,
  parseQuery,
  ScimProblem,
  scimmy,
  SCIMMY,
  sortResources,
  withoutUnset,
  type ListQuery,
} from './scim-protocol.js';
import { MAX_RESULTS } from './scim-users.js';

type AttributeFilter = ReturnType<typeof parseQuery>['attributes'];

/** The separator of a group's path: `研发部/前端组` is 前端组 inside the group named 研发部. */
export const PATH_SEPARATOR = '/';

/** A displayName as path segments, each trimmed; empty segments are refused. */
function segmentsOf(displayName: unknown): string[] {
  const segments = String(displayName)
    .split(PATH_SEPARATOR)
    .map((segment) => segment.trim());
  if (segments.some((segment) => segment === '')) throw new ScimProblem(400, 'invalidValue', `displayName "${String(displayName)}" has an empty part between "${PATH_SEPARATOR}"`);
  return segments;
}

const nameKeyOf = (segments: string[]) => segments.join(PATH_SEPARATOR).toLowerCase();

/**
 * SCIM Groups of the configured team: each group is a department. Nesting is by naming: a
 * displayName `研发部/前端组` makes 前端组 a sub-department of the group whose displayName is `研发部`
 * (which must exist first; renaming it later keeps its sub-groups inside). The department's name is
 * the last part. A group's SCIM `id` is its
 * department id, a random UUID given on creation. Members are users of the team (SCIM ids); a group
 * as a member is refused (nest by name instead).
 */
export class ScimGroups {
  constructor(private readonly context: ScimContext) {}

  async list(query: ListQuery): Promise<ScimDocument> {
    const { filter, attributes, sort } = parseQuery('Group', query);
    const displayName = equalityOf(filter, 'displayName');
    const externalId = equalityOf(filter, 'externalId');
    const rows = await this.context.resources.list(this.context.teamId, 'Group', {
      ...(displayName === undefined ? {} : { nameKey: nameKeyOf(segmentsOf(displayName)) }),
      ...(externalId === undefined ? {} : { externalId }),
    });
    const withMembers = filter !== undefined || !excludesMembers(query);
    let resources = await Promise.all(rows.map((row) => this.represent(row, withMembers)));
    if (filter) resources = await matchFilter(filter, resources);
    const page = listPage(sortResources(resources, sort), query, MAX_RESULTS);
    return { ...page, Resources: await mapInSlices(page.Resources as ScimObject[], (resource) => this.shape(resource, attributes)) };
  }

  async get(id: string, query: ListQuery = {}): Promise<ScimDocument> {
    const { attributes } = parseQuery('Group', query);
    return this.shape(await this.represent(await this.row(id), !excludesMembers(query)), attributes);
  }

  async create(body: unknown): Promise<ScimDocument> {
    const group = scimmy(() => new SCIMMY.Schemas.Group(normaliseResource(body), 'in')) as unknown as ScimObject;
    const id = randomUUID();
    const now = nowText(this.context);
    return this.write(
      { kind: 'Group', id, teamId: this.context.teamId, nameKey: '', externalId: null, attributes: {}, createdAt: now, updatedAt: now },
      group,
      'POST /Groups',
      true,
    );
  }

  async replace(id: string, body: unknown, ifMatch?: string): Promise<ScimDocument> {
    const old = await this.row(id);
    if (ifMatch !== undefined) checkIfMatch(ifMatch, versionIn(await this.represent(old, false)));
    const group = scimmy(() => new SCIMMY.Schemas.Group(normaliseResource(body), 'in')) as unknown as ScimObject;
    return this.write(old, group, `PUT /Groups/${id}`, false);
  }

  async patch(id: string, body: unknown, ifMatch?: string): Promise<ScimDocument> {
    const old = await this.row(id);
    const current = await this.represent(old, true);
    checkIfMatch(ifMatch, versionIn(current));
    let written: ScimDocument | undefined;
    const message = scimmy(() => new SCIMMY.Messages.PatchOp(normalisePatch(body) as ConstructorParameters<typeof SCIMMY.Messages.PatchOp>[0]));
    try {
      await message.apply(new SCIMMY.Schemas.Group(current, 'out'), async (patched) => {
        const group = scimmy(() => new SCIMMY.Schemas.Group({ ...patched }, 'in')) as unknown as ScimObject;
        written = await this.write(old, group, `PATCH /Groups/${id}`, false);
        return { ...written };
      });
    } catch (error) {
      throw asScimProblem(error);
    }
    return written ?? this.shape(current, undefined);
  }

  /** Removes the department (its memberships and grants go with it); sub-groups must go first (409). */
  async remove(id: string, ifMatch?: string): Promise<void> {
    const row = await this.row(id);
    if (ifMatch !== undefined) checkIfMatch(ifMatch, versionIn(await this.represent(row, false)));
    await applyChange(this.context, `DELETE /Groups/${id}`, { remove: { departments: [row.id] } });
    await this.context.resources.remove('Group', row.id);
  }

  private async write(old: ScimResourceRow, group: ScimObject, detail: string, creating: boolean): Promise<ScimDocument> {
    assertStorable('Group', group);
    const segments = segmentsOf(group.displayName);
    const nameKey = nameKeyOf(segments);
    const clash = (await this.context.resources.list(this.context.teamId, 'Group', { nameKey })).find((row) => row.id !== old.id);
    if (clash) throw new ScimProblem(409, 'uniqueness', `a group with displayName "${String(group.displayName)}" exists`);
    await assertExternalIdFree(this.context, 'Group', group.externalId, old.id);
    let parentId: string | null = null;
    if (!creating && nameKey === old.nameKey) {
      // The name did not change: the group stays where it is, even if its parent was renamed since.
      parentId = (await this.context.directory.department(old.id))?.parentId ?? null;
    } else if (segments.length > 1) {
      const parentKey = nameKeyOf(segments.slice(0, -1));
      const [parent] = await this.context.resources.list(this.context.teamId, 'Group', { nameKey: parentKey });
      if (!parent)
        throw new ScimProblem(
          400,
          'invalidValue',
          `displayName "${String(group.displayName)}" nests in group "${segments.slice(0, -1).join(PATH_SEPARATOR)}", which does not exist: create it first`,
        );
      if (parent.id === old.id) throw new ScimProblem(400, 'invalidValue', 'a group cannot nest in itself');
      parentId = parent.id;
    }
    const department: DepartmentRecord = { id: old.id, name: segments.at(-1)!.slice(0, 500), teamId: this.context.teamId, parentId };
    const change: DirectoryChange = {
      upsert: { teams: await missingTeam(this.context), departments: [department], users: await this.membershipChanges(old.id, group.members, creating) },
    };
    const attributes: ScimObject = { ...group };
    delete attributes.id;
    delete attributes.meta;
    delete attributes.members; // read from the directory
    const row: ScimResourceRow = { ...old, nameKey, externalId: typeof group.externalId === 'string' ? group.externalId : null, attributes, updatedAt: nowText(this.context) };
    if (creating) {
      // The resource first: it holds the displayName (a unique key), so of two creates at once one wins.
      if (!(await this.context.resources.create(row))) throw new ScimProblem(409, 'uniqueness', `a group with displayName "${String(group.displayName)}" exists`);
      try {
        await applyChange(this.context, detail, change);
      } catch (error) {
        await this.context.resources.remove('Group', row.id);
        throw error;
      }
    } else {
      await applyChange(this.context, detail, change);
      await this.context.resources.put(row);
    }
    return this.shape(await this.represent(row, true), undefined);
  }

  /** The user records whose memberships change when the group's members become `members`. */
  private async membershipChanges(departmentId: string, members: unknown, creating: boolean) {
    const wanted = new Set<string>();
    for (const member of (Array.isArray(members) ? members : []) as Array<{ value?: unknown; type?: unknown }>) {
      if (typeof member?.value !== 'string') continue;
      if (typeof member.type === 'string' && member.type.toLowerCase() === 'group') {
        throw new ScimProblem(400, 'invalidValue', `group ${member.value} as a member: nest groups by displayName ("Parent${PATH_SEPARATOR}Child") instead`);
      }
      wanted.add(member.value);
    }
    const known = new Set((await this.context.resources.getMany(this.context.teamId, 'User', [...wanted])).map((row) => row.id));
    const unknown = [...wanted].filter((id) => !known.has(id));
    if (unknown.length > 0) throw new ScimProblem(400, 'invalidValue', `members ${unknown.join(', ')} are not users of this SCIM service`);
    const current = new Set(creating ? [] : await this.context.directory.departmentMembers(departmentId));
    const changed = [...new Set([...wanted, ...current])].filter((id) => wanted.has(id) !== current.has(id));
    const users = await this.context.directory.users(changed);
    return users.map((user) => ({
      ...user,
      departmentIds: wanted.has(user.id) ? [...new Set([...(user.departmentIds ?? []), departmentId])] : (user.departmentIds ?? []).filter((id) => id !== departmentId),
    }));
  }

  private async row(id: string): Promise<ScimResourceRow> {
    const row = await this.context.resources.get('Group', id);
    if (!row || row.teamId !== this.context.teamId) throw new ScimProblem(404, undefined, `no group ${id}`);
    return row;
  }

  /** The group with its members (SCIM users of the department, with their names) when asked for. */
  private async represent(row: ScimResourceRow, withMembers: boolean): Promise<ScimObject> {
    // The version covers the members (ids only, read either way) even when they are not shown.
    const memberIds = await this.context.directory.departmentMembers(row.id);
    const version = versionOf([row.attributes, row.updatedAt, [...memberIds].sort()]);
    const data: ScimObject = { ...row.attributes, schemas: [SCIMMY.Schemas.Group.id], id: row.id, meta: { ...metaOf(this.context, row), version } };
    if (!withMembers) return data;
    const linked = new Set((await this.context.resources.getMany(this.context.teamId, 'User', memberIds)).map((user) => user.id));
    const users = await this.context.directory.users(memberIds.filter((id) => linked.has(id)));
    if (users.length > 0) {
      data.members = users.map((user) => ({ value: user.id, display: user.name, type: 'User', $ref: `${this.context.baseUrl}/Users/${encodeURIComponent(user.id)}` }));
    }
    return data;
  }

  /** The resource as answered (a scimmy schema instance; attributes selected when asked). */
  private shape(resource: ScimObject, attributes: AttributeFilter): ScimDocument {
    // Unset attributes are left out of answers (no `"emails":[{"value":""}]`).
    const shaped = withoutUnset(scimmy(() => new SCIMMY.Schemas.Group(resource, 'out', `${this.context.baseUrl}/Groups`, attributes)) as unknown as ScimDocument);
    // A resource always names its schemas (RFC 7643 §3), whatever `attributes` selected.
    return attributes === undefined ? shaped : { ...shaped, schemas: resource.schemas as string[] };
  }
}

/** Whether the query leaves `members` out (Entra ID asks so on its lookups), which spares reading them. */
function excludesMembers(query: ListQuery): boolean {
  return (query.excludedAttributes ?? '').split(',').some((name) => name.trim().toLowerCase() === 'members');
}
