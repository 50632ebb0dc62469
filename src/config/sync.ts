import { IM_KINDS, type ImKind } from '../directory/types.js';
import { ConfigError } from './config-error.js';
import { parseDuration } from '../shared/duration.js';

/** The SCIM 2.0 service provider (`/scim/v2`): on when SCIM_TOKEN is set. */
export interface ScimConfig {
  /** Bearer token the identity provider sends (compared in constant time). */
  readonly token: string;
  /** The one team SCIM provisions: its users and departments. */
  readonly teamId: string;
  /** The team's name when SCIM has to create it; default: the id. */
  readonly teamName: string;
}

/** `LDAP_USER_IM_ATTRIBUTES=wecom=wecomUserId,slack=slackMemberId`: IM kind to attribute. */
function imAttributes(text: string | undefined): Readonly<Partial<Record<ImKind, string>>> {
  const map: Partial<Record<ImKind, string>> = {};
  for (const pair of (text ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const [kind, attribute] = pair.split('=').map((side) => side.trim());
    if (!(IM_KINDS as readonly string[]).includes(kind ?? '') || !attribute) {
      throw new ConfigError(`LDAP_USER_IM_ATTRIBUTES must list KIND=ATTRIBUTE pairs with KIND one of ${IM_KINDS.join(', ')} (got "${pair}")`);
    }
    map[kind as ImKind] = attribute;
  }
  return Object.freeze(map);
}

/** Which server kind the LDAP defaults fit. */
export type LdapPreset = 'openldap' | 'ad';
/** Where departments come from: organisational units, groups, or both. */
export type LdapDepartmentSource = 'ou' | 'groups';

/** LDAP / Active Directory sync: on when LDAP_URL is set. */
export interface LdapConfig {
  readonly url: string;
  readonly preset: LdapPreset;
  /** Upgrade an `ldap://` connection with StartTLS before binding. */
  readonly startTls: boolean;
  /** PEM file of the CA that signed the server's certificate (ldaps:// and StartTLS). */
  readonly caFile: string | undefined;
  /** false accepts any certificate (tests, never production). */
  readonly tlsVerify: boolean;
  readonly bindDn: string | undefined;
  readonly bindPassword: string | undefined;
  readonly baseDn: string;
  readonly userBaseDn: string;
  readonly userFilter: string;
  /** Users matching this filter too are deactivated (AD: the ACCOUNTDISABLE bit). */
  readonly disabledFilter: string | undefined;
  /**
   * AD: the user, OU and group filters leave out system objects (isCriticalSystemObject: Administrator,
   * Guest, krbtgt, the built-in groups, the Domain Controllers OU); the filters above include that clause.
   */
  readonly skipSystemObjects: boolean;
  /** AD: a user's primary group (primaryGroupID, the RID of a group's objectSid) counts as a membership. */
  readonly primaryGroups: boolean;
  readonly attributes: {
    readonly id: string;
    readonly name: string;
    readonly email: string;
    readonly avatar: string | undefined;
    /** The person's language (RFC 2798 preferredLanguage): the language of their notices. */
    readonly locale: string;
    /** Attributes holding a person's user id in each IM whose bots post notices (docs/notifications.md). */
    readonly im: Readonly<Partial<Record<ImKind, string>>>;
  };
  readonly departments: readonly LdapDepartmentSource[];
  /** OUs below this DN (not the DN itself) are departments. */
  readonly departmentBaseDn: string;
  readonly ouFilter: string;
  readonly groupBaseDn: string;
  readonly groupFilter: string;
  readonly groupMemberAttribute: string;
  /** A stable id of OUs and groups (entryUUID, objectGUID); departments keep it across renames and moves. */
  readonly departmentIdAttribute: string;
  /** Department names: this attribute when set and present, else the value of the entry's RDN. */
  readonly departmentNameAttribute: string | undefined;
  /** Operational attribute whose growth tells that entries changed (entryCSN, uSNChanged). */
  readonly changeAttribute: string;
  readonly teamId: string;
  readonly teamName: string;
  readonly pageSize: number;
  readonly timeoutMs: number;
  /** `serve` syncs this often; undefined: only `collab-host sync ldap`. */
  readonly intervalSeconds: number | undefined;
  /** Scheduled runs are incremental (skipped when nothing changed) except once per this period. */
  readonly fullIntervalSeconds: number;
  readonly incremental: boolean;
}

export interface SyncConfig {
  readonly scim: ScimConfig | undefined;
  readonly ldap: LdapConfig | undefined;
}

type Get = (name: string) => string | undefined;

const PRESETS: Record<LdapPreset, { userFilter: string; id: string; name: string; disabledFilter: string | undefined; groupFilter: string; departmentId: string; change: string }> =
  {
    openldap: {
      userFilter: '(objectClass=inetOrgPerson)',
      id: 'uid',
      name: 'cn',
      disabledFilter: undefined,
      groupFilter: '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))',
      departmentId: 'entryUUID',
      // The change sequence number: microsecond precision and an ordering rule (modifyTimestamp has seconds).
      change: 'entryCSN',
    },
    ad: {
      userFilter: '(&(objectCategory=person)(objectClass=user))',
      id: 'sAMAccountName',
      name: 'displayName',
      // userAccountControl bit 2 (ACCOUNTDISABLE), matched with the bitwise-AND rule.
      disabledFilter: '(userAccountControl:1.2.840.113556.1.4.803:=2)',
      groupFilter: '(objectClass=group)',
      departmentId: 'objectGUID',
      change: 'uSNChanged',
    },
  };

/** Reads SCIM_* and LDAP_* (docs/sync.md lists them). A team kept by both sources is refused. */
export function readSyncConfig(get: Get): SyncConfig {
  const scim = readScim(get);
  const ldap = readLdap(get);
  if (scim && ldap && scim.teamId === ldap.teamId) {
    throw new ConfigError('SCIM_TEAM_ID and LDAP_TEAM_ID must differ: a team is kept by one source');
  }
  return Object.freeze({ scim, ldap });
}

function readScim(get: Get): ScimConfig | undefined {
  const token = get('SCIM_TOKEN');
  if (token === undefined) return undefined;
  if (token.length < 16) throw new ConfigError('SCIM_TOKEN must be at least 16 characters');
  const teamId = get('SCIM_TEAM_ID');
  if (teamId === undefined) throw new ConfigError('SCIM_TEAM_ID is required when SCIM_TOKEN is set (the team SCIM provisions)');
  return Object.freeze({ token, teamId, teamName: get('SCIM_TEAM_NAME') ?? teamId });
}

function readLdap(get: Get): LdapConfig | undefined {
  const url = get('LDAP_URL');
  if (url === undefined) return undefined;
  if (!/^ldaps?:\/\/[^\s/]+/i.test(url)) throw new ConfigError('LDAP_URL must start with ldap:// or ldaps://');
  const presetName = get('LDAP_PRESET') ?? 'openldap';
  if (presetName !== 'openldap' && presetName !== 'ad') throw new ConfigError('LDAP_PRESET must be openldap or ad');
  const preset = PRESETS[presetName];
  const startTls = bool(get, 'LDAP_STARTTLS', false);
  if (startTls && /^ldaps:/i.test(url)) throw new ConfigError('LDAP_STARTTLS is for ldap:// addresses; ldaps:// is TLS already');
  const baseDn = get('LDAP_BASE_DN');
  if (baseDn === undefined) throw new ConfigError('LDAP_BASE_DN is required when LDAP_URL is set');
  const teamId = get('LDAP_TEAM_ID');
  if (teamId === undefined) throw new ConfigError('LDAP_TEAM_ID is required when LDAP_URL is set (the team LDAP keeps)');
  const bindDn = get('LDAP_BIND_DN');
  const bindPassword = get('LDAP_BIND_PASSWORD');
  if ((bindDn === undefined) !== (bindPassword === undefined)) throw new ConfigError('LDAP_BIND_DN and LDAP_BIND_PASSWORD go together (both, or neither for an anonymous bind)');

  const departments = (get('LDAP_DEPARTMENTS') ?? 'ou')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '' && part !== 'none');
  for (const source of departments) {
    if (source !== 'ou' && source !== 'groups') throw new ConfigError('LDAP_DEPARTMENTS must be ou, groups, "ou,groups" or none');
  }
  const filter = (name: string, fallback: string) => {
    const value = get(name) ?? fallback;
    if (!/^\(.*\)$/s.test(value)) throw new ConfigError(`${name} must be an LDAP filter in parentheses, such as (objectClass=person)`);
    return value;
  };
  const disabledFilter = get('LDAP_USER_DISABLED_FILTER') === undefined ? preset.disabledFilter : filter('LDAP_USER_DISABLED_FILTER', '');
  const skipSystemObjects = bool(get, 'LDAP_SKIP_SYSTEM_OBJECTS', presetName === 'ad');
  // OpenLDAP has no such attribute: a filter on it would match nothing at all.
  if (skipSystemObjects && presetName !== 'ad') throw new ConfigError('LDAP_SKIP_SYSTEM_OBJECTS is for LDAP_PRESET=ad (isCriticalSystemObject is an Active Directory attribute)');
  const system = (value: string) => (skipSystemObjects ? andFilter(value, '(!(isCriticalSystemObject=TRUE))') : value);

  const intervalText = get('LDAP_SYNC_INTERVAL');
  const intervalSeconds = intervalText === undefined ? undefined : duration('LDAP_SYNC_INTERVAL', intervalText);
  return Object.freeze({
    url,
    preset: presetName,
    startTls,
    caFile: get('LDAP_CA_FILE'),
    tlsVerify: bool(get, 'LDAP_TLS_VERIFY', true),
    bindDn,
    bindPassword,
    baseDn,
    userBaseDn: get('LDAP_USER_BASE_DN') ?? baseDn,
    userFilter: system(filter('LDAP_USER_FILTER', preset.userFilter)),
    disabledFilter,
    skipSystemObjects,
    primaryGroups: presetName === 'ad',
    attributes: Object.freeze({
      id: get('LDAP_USER_ID_ATTRIBUTE') ?? preset.id,
      name: get('LDAP_USER_NAME_ATTRIBUTE') ?? preset.name,
      email: get('LDAP_USER_EMAIL_ATTRIBUTE') ?? 'mail',
      avatar: get('LDAP_USER_AVATAR_ATTRIBUTE'),
      locale: get('LDAP_USER_LOCALE_ATTRIBUTE') ?? 'preferredLanguage',
      im: imAttributes(get('LDAP_USER_IM_ATTRIBUTES')),
    }),
    departments: Object.freeze([...new Set(departments)] as LdapDepartmentSource[]),
    departmentBaseDn: get('LDAP_DEPARTMENT_BASE_DN') ?? baseDn,
    ouFilter: system(filter('LDAP_OU_FILTER', '(objectClass=organizationalUnit)')),
    groupBaseDn: get('LDAP_GROUP_BASE_DN') ?? baseDn,
    groupFilter: system(filter('LDAP_GROUP_FILTER', preset.groupFilter)),
    groupMemberAttribute: get('LDAP_GROUP_MEMBER_ATTRIBUTE') ?? 'member',
    departmentIdAttribute: get('LDAP_DEPARTMENT_ID_ATTRIBUTE') ?? preset.departmentId,
    departmentNameAttribute: get('LDAP_DEPARTMENT_NAME_ATTRIBUTE'),
    changeAttribute: get('LDAP_CHANGE_ATTRIBUTE') ?? preset.change,
    teamId,
    teamName: get('LDAP_TEAM_NAME') ?? teamId,
    pageSize: integer(get, 'LDAP_PAGE_SIZE', 500, 1, 10_000),
    timeoutMs: duration('LDAP_TIMEOUT', get('LDAP_TIMEOUT') ?? '30s') * 1000,
    intervalSeconds,
    fullIntervalSeconds: duration('LDAP_FULL_SYNC_INTERVAL', get('LDAP_FULL_SYNC_INTERVAL') ?? '1h'),
    incremental: bool(get, 'LDAP_INCREMENTAL', true),
  });
}

/** `(&A B)` and C as `(&A B C)`; any other filter F as `(&F C)`. Parentheses in values are escaped (\\28, \\29), so every one here is structure. */
function andFilter(filter: string, clause: string): string {
  let depth = 0;
  let wholeAnd = filter.startsWith('(&');
  for (let index = 0; index < filter.length && wholeAnd; index += 1) {
    if (filter[index] === '(') depth += 1;
    else if (filter[index] === ')') depth -= 1;
    if (depth === 0 && index < filter.length - 1) wholeAnd = false;
  }
  return wholeAnd ? `${filter.slice(0, -1)}${clause})` : `(&${filter}${clause})`;
}

function bool(get: Get, name: string, fallback: boolean): boolean {
  const value = get(name);
  if (value === undefined) return fallback;
  if (/^(true|1|yes|on)$/i.test(value)) return true;
  if (/^(false|0|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false`);
}

function duration(name: string, text: string): number {
  const seconds = parseDuration(text);
  if (seconds === undefined || seconds <= 0) throw new ConfigError(`${name} must be a duration such as 90s, 15m, 1h or 1d`);
  return seconds;
}

function integer(get: Get, name: string, fallback: number, min: number, max: number): number {
  const value = get(name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}`);
  return Number(value);
}
