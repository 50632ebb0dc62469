import type { LdapConfig } from '../../config/sync.js';
import type { DepartmentRecord } from '../../snapshot/records.js';
import type { DesiredTeam } from '../team-change.js';
import { firstText, idText, normalizeDn, parentDn, rdnValue, texts } from './ldap-values.js';
import type { LdapEntry, LdapSearcher } from './ldap-connection.js';

/** The team as LDAP has it, the highest change mark seen, and entries that were left out (with why). */
export interface LdapView {
  desired: DesiredTeam;
  /** The largest LDAP_CHANGE_ATTRIBUTE value among the entries read (the next incremental probe starts there). */
  highWaterMark: string | undefined;
  warnings: string[];
}

/** Whether change mark `a` comes after `b` (numbers such as uSNChanged, or GeneralizedTime text). */
export function isLaterMark(a: string, b: string | undefined): boolean {
  if (b === undefined) return true;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) > BigInt(b);
  return a > b;
}

/**
 * Reads users, departments (OUs below LDAP_DEPARTMENT_BASE_DN and/or groups) and disabled accounts,
 * and maps them to records of the configured team:
 * - a user's id, name, e-mail and avatar come from the configured attributes; a user without an id is
 *   left out (a warning), the second of two users with one id too;
 * - an OU's parent is the nearest OU above it; a user is a member of the OU that holds their entry;
 * - a group's members are the users (and groups, which become its sub-departments) named in its member
 *   attribute; a group inside several groups is placed under the first by DN;
 * - department ids are the stable LDAP_DEPARTMENT_ID_ATTRIBUTE (renames and moves keep them);
 * - users matching LDAP_USER_DISABLED_FILTER are deactivated.
 */
export async function readLdapView(config: LdapConfig, ldap: LdapSearcher): Promise<LdapView> {
  const warnings: string[] = [];
  let highWaterMark: string | undefined;
  const seeMark = (entry: LdapEntry) => {
    const mark = firstText(entry, config.changeAttribute);
    if (mark !== undefined && isLaterMark(mark, highWaterMark)) highWaterMark = mark;
  };
  const departmentAttributes = [config.departmentIdAttribute, config.changeAttribute, ...(config.departmentNameAttribute ? [config.departmentNameAttribute] : [])];

  // Departments by normalised DN.
  const departmentByDn = new Map<string, DepartmentRecord>();
  const parentDnOf = new Map<string, string | null>();
  const departmentOf = (entry: LdapEntry, kind: string): DepartmentRecord | undefined => {
    seeMark(entry);
    const id = idText(entry, config.departmentIdAttribute);
    if (id === undefined) {
      warnings.push(`${kind} ${entry.dn} left out: it has no ${config.departmentIdAttribute}`);
      return undefined;
    }
    const name = (config.departmentNameAttribute ? firstText(entry, config.departmentNameAttribute) : undefined) ?? rdnValue(entry.dn);
    return { id, name: name === '' ? id : name, teamId: config.teamId, parentId: null };
  };

  if (config.departments.includes('ou')) {
    const base = normalizeDn(config.departmentBaseDn);
    for (const entry of await ldap.search(config.departmentBaseDn, config.ouFilter, departmentAttributes)) {
      const dn = normalizeDn(entry.dn);
      if (dn === base) continue;
      const department = departmentOf(entry, 'OU');
      if (department) departmentByDn.set(dn, department);
    }
    for (const dn of departmentByDn.keys()) {
      let parent = parentDn(dn);
      while (parent !== null && !departmentByDn.has(parent)) parent = parentDn(parent);
      parentDnOf.set(dn, parent);
    }
  }

  // Groups: members by group DN (normalised), then nesting from groups that are members of groups.
  const groupMembers = new Map<string, string[]>();
  if (config.departments.includes('groups')) {
    const entries = await ldap.search(config.groupBaseDn, config.groupFilter, [...departmentAttributes, config.groupMemberAttribute]);
    for (const entry of entries.sort((a, b) => normalizeDn(a.dn).localeCompare(normalizeDn(b.dn)))) {
      const department = departmentOf(entry, 'group');
      if (!department) continue;
      const dn = normalizeDn(entry.dn);
      departmentByDn.set(dn, department);
      groupMembers.set(dn, texts(entry, config.groupMemberAttribute).map(normalizeDn));
    }
    for (const [groupDn, members] of groupMembers) {
      for (const member of members) {
        if (groupMembers.has(member) && member !== groupDn && !parentDnOf.has(member)) parentDnOf.set(member, groupDn);
      }
    }
  }
  for (const [dn, department] of departmentByDn) {
    const parent = parentDnOf.get(dn);
    department.parentId = parent ? (departmentByDn.get(parent)?.id ?? null) : null;
  }
  breakCycles(departmentByDn, warnings);

  const disabled = new Set<string>();
  if (config.disabledFilter !== undefined) {
    for (const entry of await ldap.search(config.userBaseDn, `(&${config.userFilter}${config.disabledFilter})`, ['1.1'])) disabled.add(normalizeDn(entry.dn));
  }
  const groupsOfMember = new Map<string, string[]>();
  for (const [groupDn, members] of groupMembers) {
    const id = departmentByDn.get(groupDn)!.id;
    for (const member of members) groupsOfMember.set(member, [...(groupsOfMember.get(member) ?? []), id]);
  }

  const { id: idAttribute, name: nameAttribute, email: emailAttribute } = config.attributes;
  const avatarAttribute: string | undefined = config.attributes.avatar;
  const userAttributes = [idAttribute, nameAttribute, emailAttribute, config.changeAttribute, ...(avatarAttribute ? [avatarAttribute] : [])];
  const users: DesiredTeam['users'] = [];
  const seenIds = new Map<string, string>();
  for (const entry of await ldap.search(config.userBaseDn, config.userFilter, userAttributes)) {
    seeMark(entry);
    const dn = normalizeDn(entry.dn);
    const id = firstText(entry, idAttribute);
    if (id === undefined || id === '') {
      warnings.push(`user ${entry.dn} left out: it has no ${idAttribute}`);
      continue;
    }
    const earlier = seenIds.get(id);
    if (earlier !== undefined) {
      warnings.push(`user ${entry.dn} left out: ${idAttribute} "${id}" is also ${earlier}'s`);
      continue;
    }
    seenIds.set(id, entry.dn);
    const departmentIds = new Set<string>(groupsOfMember.get(dn) ?? []);
    if (config.departments.includes('ou')) {
      let parent = parentDn(dn);
      while (parent !== null && !departmentByDn.has(parent)) parent = parentDn(parent);
      const ou = parent === null ? undefined : departmentByDn.get(parent);
      if (ou && !groupMembers.has(parent!)) departmentIds.add(ou.id);
    }
    const email = firstText(entry, emailAttribute);
    const avatar = avatarAttribute ? firstText(entry, avatarAttribute) : undefined;
    users.push({
      id,
      name: firstText(entry, nameAttribute) || id,
      ...(email ? { email } : {}),
      ...(avatar && /^https?:\/\//i.test(avatar) ? { avatar } : {}),
      teamId: config.teamId,
      departmentIds: [...departmentIds].sort(),
      active: !disabled.has(dn),
    });
  }

  return {
    desired: { team: { id: config.teamId, name: config.teamName }, departments: [...departmentByDn.values()].sort((a, b) => a.id.localeCompare(b.id)), users },
    highWaterMark,
    warnings,
  };
}

/** Group nesting can loop (A in B, B in A); the department that closes a loop becomes first-level. */
function breakCycles(departments: Map<string, DepartmentRecord>, warnings: string[]): void {
  const byId = new Map([...departments.values()].map((department) => [department.id, department]));
  for (const department of byId.values()) {
    const seen = new Set<string>([department.id]);
    for (let parent = department.parentId ?? null; parent !== null; parent = byId.get(parent)?.parentId ?? null) {
      if (seen.has(parent)) {
        warnings.push(`department ${department.id} made first-level: its groups nest in a loop`);
        department.parentId = null;
        break;
      }
      seen.add(parent);
    }
  }
}
