import type { LdapConfig } from '../../config/sync.js';
import type { DepartmentRecord } from '../../directory-changes/records.js';
import type { SkippedEntry } from '../sync-run-shape.js';
import type { DesiredTeam } from '../team-change.js';
import { firstLanguageTag } from '../../directory/language-tag.js';
import { firstText, idText, normalizeDn, parentDn, rdnValue, sidParts, texts } from './ldap-values.js';
import type { LdapEntry, LdapSearcher } from './ldap-connection.js';

/** The team as LDAP has it, where each record came from, and the entries that could not be taken. */
export interface LdapView {
  desired: DesiredTeam;
  /** The DN of each user and department of `desired`, by id: a record the change path refuses is reported by it. */
  dns: { users: Map<string, string>; departments: Map<string, string> };
  /** How many entries the user search answered (taken or not): none at all is a misconfiguration, not a company without people. */
  userEntries: number;
  /** The largest LDAP_CHANGE_ATTRIBUTE value among the entries read (the next incremental probe starts there). */
  highWaterMark: string | undefined;
  /** Entries left out while reading (no id, an id taken by an earlier entry). */
  skipped: SkippedEntry[];
  /** What was taken differently from what the directory says, nothing left out (a nesting loop cut). */
  notes: string[];
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
 * - users matching LDAP_USER_DISABLED_FILTER are deactivated;
 * - AD: a user is also a member of their primary group (primaryGroupID, which `member` never lists).
 */
export async function readLdapView(config: LdapConfig, ldap: LdapSearcher): Promise<LdapView> {
  const skipped: SkippedEntry[] = [];
  const notes: string[] = [];
  const departmentDns = new Map<string, string>();
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
      skipped.push({ dn: entry.dn, reason: `the ${kind} has no ${config.departmentIdAttribute}` });
      return undefined;
    }
    departmentDns.set(id, entry.dn);
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
  // AD: groups by their objectSid's domain and RID, for primaryGroupID.
  const groupBySid = new Map<string, string>();
  const primaryGroups = config.primaryGroups && config.departments.includes('groups');
  if (config.departments.includes('groups')) {
    const entries = await ldap.search(config.groupBaseDn, config.groupFilter, [...departmentAttributes, config.groupMemberAttribute, ...(primaryGroups ? [SID] : [])]);
    for (const entry of entries.sort((a, b) => normalizeDn(a.dn).localeCompare(normalizeDn(b.dn)))) {
      const department = departmentOf(entry, 'group');
      if (!department) continue;
      const dn = normalizeDn(entry.dn);
      departmentByDn.set(dn, department);
      groupMembers.set(dn, texts(entry, config.groupMemberAttribute).map(normalizeDn));
      const sid = primaryGroups ? sidParts(entry, SID) : undefined;
      if (sid) groupBySid.set(`${sid.domain}:${sid.rid}`, department.id);
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
  breakCycles(departmentByDn, notes);

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
  const imAttributes = Object.entries(config.attributes.im);
  const userAttributes = [
    idAttribute,
    nameAttribute,
    emailAttribute,
    config.changeAttribute,
    config.attributes.locale,
    ...imAttributes.map(([, attribute]) => attribute),
    ...(avatarAttribute ? [avatarAttribute] : []),
    ...(primaryGroups ? [SID, 'primaryGroupID'] : []),
  ];
  const users: DesiredTeam['users'] = [];
  const userDns = new Map<string, string>();
  const userEntries = await ldap.search(config.userBaseDn, config.userFilter, userAttributes);
  for (const entry of userEntries) {
    seeMark(entry);
    const dn = normalizeDn(entry.dn);
    const id = firstText(entry, idAttribute);
    if (id === undefined || id === '') {
      skipped.push({ dn: entry.dn, reason: `the user has no ${idAttribute}` });
      continue;
    }
    const earlier = userDns.get(id);
    if (earlier !== undefined) {
      skipped.push({ dn: entry.dn, reason: `${idAttribute} "${id}" is also the user ${earlier}'s` });
      continue;
    }
    userDns.set(id, entry.dn);
    const departmentIds = new Set<string>(groupsOfMember.get(dn) ?? []);
    const sid = primaryGroups ? sidParts(entry, SID) : undefined;
    const primary = sid && groupBySid.get(`${sid.domain}:${firstText(entry, 'primaryGroupID') ?? ''}`);
    if (primary !== undefined) departmentIds.add(primary);
    if (config.departments.includes('ou')) {
      let parent = parentDn(dn);
      while (parent !== null && !departmentByDn.has(parent)) parent = parentDn(parent);
      const ou = parent === null ? undefined : departmentByDn.get(parent);
      if (ou && !groupMembers.has(parent!)) departmentIds.add(ou.id);
    }
    const email = firstText(entry, emailAttribute);
    const avatar = avatarAttribute ? firstText(entry, avatarAttribute) : undefined;
    const locale = firstLanguageTag(firstText(entry, config.attributes.locale));
    const im = Object.fromEntries(imAttributes.map(([kind, attribute]) => [kind, firstText(entry, attribute)]).filter(([, value]) => value));
    users.push({
      id,
      name: firstText(entry, nameAttribute) || id,
      ...(email ? { email } : {}),
      ...(avatar && /^https?:\/\//i.test(avatar) ? { avatar } : {}),
      ...(locale ? { locale } : {}),
      ...(Object.keys(im).length > 0 ? { im } : {}),
      teamId: config.teamId,
      departmentIds: [...departmentIds].sort(),
      active: !disabled.has(dn),
    });
  }

  return {
    desired: { team: { id: config.teamId, name: config.teamName }, departments: [...departmentByDn.values()].sort((a, b) => a.id.localeCompare(b.id)), users },
    dns: { users: userDns, departments: departmentDns },
    userEntries: userEntries.length,
    highWaterMark,
    skipped,
    notes,
  };
}

/** AD's security identifier of users and groups (binary). */
const SID = 'objectSid';

/** Group nesting can loop (A in B, B in A); the department that closes a loop becomes first-level. */
function breakCycles(departments: Map<string, DepartmentRecord>, notes: string[]): void {
  const byId = new Map([...departments.values()].map((department) => [department.id, department]));
  for (const department of byId.values()) {
    const seen = new Set<string>([department.id]);
    for (let parent = department.parentId ?? null; parent !== null; parent = byId.get(parent)?.parentId ?? null) {
      if (seen.has(parent)) {
        notes.push(`department ${department.id} (${department.name}) made first-level: its groups nest in a loop`);
        department.parentId = null;
        break;
      }
      seen.add(parent);
    }
  }
}
