import { createHash } from 'node:crypto';
import type { DepartmentRecord, TeamRecord } from '../../directory-changes/records.js';
import type { UserState } from '../../store/directory-writes/directory-state.js';
import type { ScimResourceRow, ScimResourceStore } from '../../store/directory-writes/scim-resources.js';
import type { SyncRunStore } from '../../store/sync/sync-runs.js';
import type { DirectoryChange, DirectoryChanges, DirectoryDiff } from '../../directory-changes/directory-changes.js';
import { recordedRun } from '../sync-run.js';
import { LIST_SCHEMA, ScimProblem, type ListQuery } from './scim-protocol.js';

/** What the SCIM resources read from the directory. */
export interface ScimDirectoryReads {
  /** The users among `ids`, with memberships and `active`. */
  users(ids: readonly string[]): Promise<UserState[]>;
  /** The ids among `ids` of users who created files. */
  fileCreators(ids: readonly string[]): Promise<Set<string>>;
  /** The team's users with this e-mail (case-insensitive). */
  usersByEmail(teamId: string, email: string): Promise<UserState[]>;
  /** The department, if it exists. */
  department(id: string): Promise<DepartmentRecord | undefined>;
  /** A department's direct members. */
  departmentMembers(departmentId: string): Promise<string[]>;
  /** The team, if it exists. */
  team(teamId: string): Promise<TeamRecord | undefined>;
}

/** Everything the SCIM service provider needs: its team, its store, and the one change path. */
export interface ScimContext {
  teamId: string;
  teamName: string;
  /** `…/scim/v2`, for `meta.location`. */
  baseUrl: string;
  resources: ScimResourceStore;
  changes: DirectoryChanges;
  runs: SyncRunStore;
  directory: ScimDirectoryReads;
  now: () => number;
}

/** A SCIM resource as a plain object (what scimmy's schema classes take and give). */
export type ScimObject = Record<string, unknown>;

/** A whole resource or message as answered: it names its `schemas`. */
export type ScimDocument = { schemas: string[]; [attribute: string]: unknown };

/** The team record to upsert with a change when the team does not exist yet (SCIM creates its team). */
export async function missingTeam(context: ScimContext): Promise<TeamRecord[]> {
  return (await context.directory.team(context.teamId)) ? [] : [{ id: context.teamId, name: context.teamName }];
}

/**
 * Applies one request's change through the change path (source `scim`) as a recorded run. A refusal
 * becomes the SCIM error a client can act on: 400 invalidValue, 404, 409 (uniqueness when the path said
 * the record is in use or owned elsewhere).
 */
export async function applyChange(context: ScimContext, detail: string, change: DirectoryChange): Promise<DirectoryDiff> {
  let refusal: Error | undefined;
  const report = await recordedRun(
    context.runs,
    { source: 'scim', mode: 'request', dryRun: false, detail },
    async () => ({ result: await context.changes.apply(change, { source: 'scim' }) }),
    context.now,
  );
  if (report.refusal) {
    const { status, message } = report.refusal;
    refusal = new ScimProblem(status, status === 400 ? 'invalidValue' : undefined, message);
  } else if (report.status === 'failed') {
    refusal = new Error(report.errors.join('; '));
  }
  if (refusal) throw refusal;
  return report.diff!;
}

/**
 * A resource's `meta.version` (RFC 7644 §3.14): a weak ETag digested from everything its representation
 * is made of (`parts`), so a change by any writer, through SCIM or not, gives another version.
 */
export function versionOf(parts: unknown): string {
  return `W/"${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 27)}"`;
}

/** The `meta.version` of a represented resource. */
export function versionIn(resource: ScimObject): string {
  return String((resource.meta as { version?: unknown } | undefined)?.version ?? '');
}

/** Refuses a write whose If-Match names another version than the stored one (412, RFC 7644 §3.14). */
export function checkIfMatch(ifMatch: string | undefined, version: string): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  if (!ifMatch.split(',').some((given) => bare(given) === bare(version))) {
    throw new ScimProblem(412, undefined, `the resource was changed since version ${ifMatch.trim()}: read it again (its version is ${version})`);
  }
}

/** `meta` of a resource: type, times and address. */
export function metaOf(context: ScimContext, row: ScimResourceRow): ScimObject {
  const endpoint = row.kind === 'User' ? 'Users' : 'Groups';
  return {
    resourceType: row.kind,
    created: new Date(row.createdAt),
    lastModified: new Date(row.updatedAt),
    location: `${context.baseUrl}/${endpoint}/${encodeURIComponent(row.id)}`,
  };
}

/** One page of a ListResponse (RFC 7644 §3.4.2.4): startIndex from 1, count 0 gives the total only. */
export function listPage(resources: ScimObject[], query: ListQuery, maxResults: number): ScimDocument {
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.min(Math.max(0, query.count ?? maxResults), maxResults);
  const page = resources.slice(startIndex - 1, startIndex - 1 + count);
  return { schemas: [LIST_SCHEMA], totalResults: resources.length, startIndex, itemsPerPage: page.length, Resources: page };
}

export { equalityOf } from './scim-filter-match.js';

/**
 * Refuses (409 uniqueness) an `externalId` another resource of the same kind in the team holds: an
 * identity provider looks resources up by it and must find one.
 */
export async function assertExternalIdFree(context: ScimContext, kind: 'User' | 'Group', externalId: unknown, ownId: string | undefined): Promise<void> {
  if (typeof externalId !== 'string') return;
  const holders = await context.resources.list(context.teamId, kind, { externalId });
  if (holders.some((row) => row.id !== ownId)) throw externalIdTaken(kind);
}

/** The refusal of an `externalId` another resource of the kind holds. */
export function externalIdTaken(kind: 'User' | 'Group'): ScimProblem {
  return new ScimProblem(409, 'uniqueness', `another ${kind === 'User' ? 'user' : 'group'} has this externalId`);
}

/** The current time in the store's text form. */
export function nowText(context: ScimContext): string {
  return new Date(context.now()).toISOString();
}
