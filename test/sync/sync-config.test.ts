import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, testConfig } from '../../src/config/config.js';

const LDAP = { LDAP_URL: 'ldap://ldap.example.com', LDAP_BASE_DN: 'dc=example,dc=com', LDAP_TEAM_ID: 'corp' };

describe('sync configuration (SCIM_*, LDAP_*)', () => {
  it('is off without SCIM_TOKEN and LDAP_URL, and testConfig needs none of it', () => {
    expect(loadConfig({}).sync).toEqual({ scim: undefined, ldap: undefined });
    expect(testConfig().sync).toEqual({ scim: undefined, ldap: undefined });
    expect(Object.isFrozen(loadConfig({}).sync)).toBe(true);
  });

  it('reads SCIM: token, team and its name', () => {
    expect(loadConfig({ SCIM_TOKEN: 'scim-token-0123456789', SCIM_TEAM_ID: 'acme' }).sync.scim).toEqual({ token: 'scim-token-0123456789', teamId: 'acme', teamName: 'acme' });
    expect(loadConfig({ SCIM_TOKEN: 'scim-token-0123456789', SCIM_TEAM_ID: 'acme', SCIM_TEAM_NAME: 'Acme 公司' }).sync.scim?.teamName).toBe('Acme 公司');
  });

  it('has defaults that fit OpenLDAP, and with LDAP_PRESET=ad ones that fit Active Directory', () => {
    expect(loadConfig(LDAP).sync.ldap).toMatchObject({
      preset: 'openldap',
      startTls: false,
      tlsVerify: true,
      bindDn: undefined,
      userBaseDn: 'dc=example,dc=com',
      userFilter: '(objectClass=inetOrgPerson)',
      disabledFilter: undefined,
      attributes: { id: 'uid', name: 'cn', email: 'mail', avatar: undefined },
      departments: ['ou'],
      ouFilter: '(objectClass=organizationalUnit)',
      groupFilter: '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))',
      groupMemberAttribute: 'member',
      departmentIdAttribute: 'entryUUID',
      changeAttribute: 'entryCSN',
      teamName: 'corp',
      pageSize: 500,
      timeoutMs: 30_000,
      intervalSeconds: undefined,
      fullIntervalSeconds: 3600,
      incremental: true,
    });
    expect(loadConfig({ ...LDAP, LDAP_PRESET: 'ad', LDAP_SYNC_INTERVAL: '15m', LDAP_DEPARTMENTS: 'ou,groups' }).sync.ldap).toMatchObject({
      // System accounts, built-in groups and the Domain Controllers OU are left out.
      userFilter: '(&(objectCategory=person)(objectClass=user)(!(isCriticalSystemObject=TRUE)))',
      disabledFilter: '(userAccountControl:1.2.840.113556.1.4.803:=2)',
      skipSystemObjects: true,
      primaryGroups: true,
      attributes: { id: 'sAMAccountName', name: 'displayName' },
      ouFilter: '(&(objectClass=organizationalUnit)(!(isCriticalSystemObject=TRUE)))',
      groupFilter: '(&(objectClass=group)(!(isCriticalSystemObject=TRUE)))',
      departmentIdAttribute: 'objectGUID',
      changeAttribute: 'uSNChanged',
      departments: ['ou', 'groups'],
      intervalSeconds: 900,
    });
    // An operator's own filter gets the clause too, unless LDAP_SKIP_SYSTEM_OBJECTS=false.
    expect(loadConfig({ ...LDAP, LDAP_PRESET: 'ad', LDAP_USER_FILTER: '(|(memberOf=CN=Staff\\29,DC=x)(department=R&D))' }).sync.ldap?.userFilter).toBe(
      '(&(|(memberOf=CN=Staff\\29,DC=x)(department=R&D))(!(isCriticalSystemObject=TRUE)))',
    );
    expect(loadConfig({ ...LDAP, LDAP_PRESET: 'ad', LDAP_USER_FILTER: '(&(objectClass=user)(department=R&D))' }).sync.ldap?.userFilter).toBe(
      '(&(objectClass=user)(department=R&D)(!(isCriticalSystemObject=TRUE)))',
    );
    expect(loadConfig({ ...LDAP, LDAP_PRESET: 'ad', LDAP_SKIP_SYSTEM_OBJECTS: 'false' }).sync.ldap).toMatchObject({
      userFilter: '(&(objectCategory=person)(objectClass=user))',
      groupFilter: '(objectClass=group)',
      skipSystemObjects: false,
    });
    expect(loadConfig(LDAP).sync.ldap).toMatchObject({ skipSystemObjects: false, primaryGroups: false });
  });

  it('refuses malformed values with one line naming the variable and the rule', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ SCIM_TOKEN: 'short' }, 'SCIM_TOKEN must be at least 16 characters'],
      [{ SCIM_TOKEN: 'scim-token-0123456789' }, 'SCIM_TEAM_ID is required when SCIM_TOKEN is set (the team SCIM provisions)'],
      [{ ...LDAP, LDAP_URL: 'http://ldap.example.com' }, 'LDAP_URL must start with ldap:// or ldaps://'],
      [{ LDAP_URL: 'ldap://x', LDAP_TEAM_ID: 'corp' }, 'LDAP_BASE_DN is required when LDAP_URL is set'],
      [{ LDAP_URL: 'ldap://x', LDAP_BASE_DN: 'dc=x' }, 'LDAP_TEAM_ID is required when LDAP_URL is set (the team LDAP keeps)'],
      [{ ...LDAP, LDAP_PRESET: 'novell' }, 'LDAP_PRESET must be openldap or ad'],
      [{ ...LDAP, LDAP_URL: 'ldaps://x', LDAP_STARTTLS: 'true' }, 'LDAP_STARTTLS is for ldap:// addresses; ldaps:// is TLS already'],
      [{ ...LDAP, LDAP_STARTTLS: 'maybe' }, 'LDAP_STARTTLS must be true or false'],
      [{ ...LDAP, LDAP_BIND_DN: 'cn=reader' }, 'LDAP_BIND_DN and LDAP_BIND_PASSWORD go together (both, or neither for an anonymous bind)'],
      [{ ...LDAP, LDAP_DEPARTMENTS: 'ou,teams' }, 'LDAP_DEPARTMENTS must be ou, groups, "ou,groups" or none'],
      [{ ...LDAP, LDAP_USER_FILTER: 'objectClass=person' }, 'LDAP_USER_FILTER must be an LDAP filter in parentheses, such as (objectClass=person)'],
      [{ ...LDAP, LDAP_SYNC_INTERVAL: 'often' }, 'LDAP_SYNC_INTERVAL must be a duration such as 90s, 15m, 1h or 1d'],
      [{ ...LDAP, LDAP_PAGE_SIZE: '0' }, 'LDAP_PAGE_SIZE must be a whole number from 1 to 10000'],
      [{ ...LDAP, LDAP_SKIP_SYSTEM_OBJECTS: 'true' }, 'LDAP_SKIP_SYSTEM_OBJECTS is for LDAP_PRESET=ad (isCriticalSystemObject is an Active Directory attribute)'],
      [
        { ...LDAP, LDAP_USER_IM_ATTRIBUTES: 'teams=msTeamsId' },
        'LDAP_USER_IM_ATTRIBUTES must list KIND=ATTRIBUTE pairs with KIND one of wecom, dingtalk, feishu, slack (got "teams=msTeamsId")',
      ],
      [{ ...LDAP, LDAP_USER_IM_ATTRIBUTES: 'wecom' }, 'LDAP_USER_IM_ATTRIBUTES must list KIND=ATTRIBUTE pairs with KIND one of wecom, dingtalk, feishu, slack (got "wecom")'],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), message).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(new ConfigError(message));
    }
  });
});
