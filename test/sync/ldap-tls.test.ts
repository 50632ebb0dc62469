import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLdapConnection } from '../../src/sync/ldap/ldap-connection.js';
import { COMPANY_LDIF, configWithSync, ldapEnv, PEOPLE_DN } from './sync-helpers.js';
import { SKIP_MESSAGE, SLAPD, startSlapd, TLS_DIR, type RunningSlapd } from './slapd.js';

const CA_FILE = join(TLS_DIR, 'ca.pem');

if (!SLAPD) {
  console.log(`\n${SKIP_MESSAGE}\n`);
  describe.skip('LDAP over TLS against slapd', () => {
    it('needs slapd', () => undefined);
  });
} else {
  describe('LDAP over TLS (StartTLS and ldaps://) against slapd with a test CA', () => {
    let slapd: RunningSlapd;
    beforeAll(async () => {
      slapd = await startSlapd(COMPANY_LDIF, { tls: true });
    });
    afterAll(async () => {
      await slapd?.stop();
    });

    const countPeople = (env: Record<string, string>) =>
      withLdapConnection(configWithSync(env).sync.ldap!, async (ldap) => (await ldap.search(PEOPLE_DN, '(objectClass=inetOrgPerson)', ['uid'])).length);

    it('reads over StartTLS and over ldaps:// when LDAP_CA_FILE names the CA', async () => {
      expect(await countPeople(ldapEnv(slapd.url, { LDAP_STARTTLS: 'true', LDAP_CA_FILE: CA_FILE }))).toBe(35);
      expect(await countPeople(ldapEnv(slapd.ldapsUrl!, { LDAP_CA_FILE: CA_FILE }))).toBe(35);
    });

    it('refuses a server whose certificate the configured CAs do not vouch for, and says which step failed', async () => {
      await expect(countPeople(ldapEnv(slapd.url, { LDAP_STARTTLS: 'true' }))).rejects.toThrow(/^LDAP StartTLS at ldap:\/\/127\.0\.0\.1:\d+ failed: .*certificate/);
      await expect(countPeople(ldapEnv(slapd.ldapsUrl!))).rejects.toThrow(/^LDAP bind as cn=reader,dc=example,dc=com at ldaps:\/\/127\.0\.0\.1:\d+ failed: .*certificate/);
      // LDAP_TLS_VERIFY=false accepts it (tests and trials only).
      expect(await countPeople(ldapEnv(slapd.ldapsUrl!, { LDAP_TLS_VERIFY: 'false' }))).toBe(35);
    });
  });
}
