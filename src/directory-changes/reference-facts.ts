import type { PrincipalKind } from '../directory/types.js';
import type { ExistingDirectory } from './existing-directory.js';
import { PRINCIPAL_KINDS, type DepartmentRecord, type SectionName, type SnapshotFileRecord, type UserRecord } from './records.js';

/** A record of a snapshot with its JSON path. */
export interface Indexed<T> {
  record: T;
  path: string;
}

/** `user:ID`, `department:ID` or `team:ID` as its kind and id; undefined for any other form. */
export function parsePrincipal(principal: string): { kind: PrincipalKind; id: string } | undefined {
  const colon = principal.indexOf(':');
  if (colon < 0) return undefined;
  const kind = principal.slice(0, colon);
  const id = principal.slice(colon + 1);
  if (id === '' || !(PRINCIPAL_KINDS as readonly string[]).includes(kind)) return undefined;
  return { kind: kind as PrincipalKind, id };
}

type DepartmentFact = { teamId: string; parentId: string | null } | 'invalid' | undefined;
type UserFact = { teamId: string | null } | 'invalid' | undefined;

/**
 * What the rules ask about ids: the snapshot's own records first (they win over the store on upsert),
 * then the store, asked once per kind for every id the snapshot does not declare. `invalid` marks an
 * id whose record is declared but broken (already reported).
 */
export async function gatherFacts(
  valid: { departments: Indexed<Partial<DepartmentRecord>>[]; users: Indexed<Partial<UserRecord>>[]; files: Indexed<Partial<SnapshotFileRecord>>[] },
  declared: Record<SectionName, Set<string>>,
  existing: ExistingDirectory,
) {
  const departments = new Map<string, { teamId: string; parentId: string | null }>();
  for (const { record } of valid.departments) {
    if (record.id !== undefined && record.teamId !== undefined) departments.set(record.id, { teamId: record.teamId, parentId: record.parentId ?? null });
  }
  const users = new Map<string, { teamId: string | null }>();
  for (const { record } of valid.users) if (record.id !== undefined) users.set(record.id, { teamId: record.teamId ?? null });

  const wanted = { teams: new Set<string>(), departments: new Set<string>(), users: new Set<string>() };
  const want = (kind: keyof typeof wanted, id: string | null | undefined) => {
    if (id != null && !declared[kind].has(id)) wanted[kind].add(id);
  };
  for (const { record } of valid.departments) {
    want('teams', record.teamId);
    want('departments', record.parentId);
  }
  for (const { record } of valid.users) {
    want('teams', record.teamId);
    for (const id of record.departmentIds ?? []) want('departments', id);
  }
  for (const { record } of valid.files) {
    want('users', record.creatorId);
    want('teams', record.teamId);
    for (const entry of record.sharing ?? []) {
      if (entry?.principal === undefined) continue;
      const parsed = parsePrincipal(entry.principal);
      if (parsed) want(parsed.kind === 'user' ? 'users' : parsed.kind === 'team' ? 'teams' : 'departments', parsed.id);
    }
  }

  // A `file` without downloadUrl or contentFile is served from bytes already stored, if there are any.
  const needBytes = valid.files.filter(({ record }) => record.type === 'file' && record.downloadUrl === undefined && record.contentFile === undefined);
  const storedBytes = needBytes.length > 0 ? await existing.filesWithStoredContent(needBytes.map(({ record }) => record.id!).filter(Boolean)) : new Set<string>();

  const existingTeams = wanted.teams.size > 0 ? await existing.teams([...wanted.teams]) : new Set<string>();
  for (const [id, user] of wanted.users.size > 0 ? await existing.users([...wanted.users]) : []) users.set(id, user);
  // Stored departments, then their stored ancestors, round by round: the cycle walk needs whole chains.
  let ask = [...wanted.departments];
  while (ask.length > 0) {
    const found = await existing.departments(ask);
    ask = [];
    for (const [id, department] of found) {
      departments.set(id, department);
      const parentId = department.parentId;
      if (parentId !== null && !departments.has(parentId) && !declared.departments.has(parentId)) ask.push(parentId);
    }
    ask = [...new Set(ask)].filter((id) => !departments.has(id));
  }

  const acyclic = new Set<string>();
  return {
    teamExists: (id: string) => declared.teams.has(id) || existingTeams.has(id),
    department(id: string): DepartmentFact {
      return departments.get(id) ?? (declared.departments.has(id) ? 'invalid' : undefined);
    },
    user(id: string): UserFact {
      return users.get(id) ?? (declared.users.has(id) ? 'invalid' : undefined);
    },
    /** Whether the store holds bytes for this file (and they stay: an upsert keeps them). */
    hasStoredContent: (fileId: string) => storedBytes.has(fileId),
    principalExists(kind: PrincipalKind, id: string): boolean {
      if (kind === 'team') return declared.teams.has(id) || existingTeams.has(id);
      if (kind === 'department') return declared.departments.has(id) || departments.has(id);
      return declared.users.has(id) || users.has(id);
    },
    /** The cycle the department's parent chain runs into and which contains it, as ids; undefined when none. */
    cycleThrough(id: string): string[] | undefined {
      const chain: string[] = [];
      const onChain = new Set<string>();
      let current: string | null | undefined = id;
      while (current != null && !acyclic.has(current) && !onChain.has(current)) {
        chain.push(current);
        onChain.add(current);
        current = departments.get(current)?.parentId;
      }
      if (current != null && onChain.has(current)) {
        const start = chain.indexOf(current);
        if (start === 0) return [...chain, id];
        return undefined; // the chain runs into a cycle this department is not part of: reported at its members
      }
      for (const member of chain) acyclic.add(member);
      return undefined;
    },
  };
}
