import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLdapConnection } from '../../src/sync/ldap/ldap-connection.js';
import { COMPANY_LDIF, configWithSync, ldapEnv, PEOPLE_DN } from './sync-helpers.js';
import { SKIP_MESSAGE, SLAPD, startSlapd, TLS_DIR, type RunningSlapd } from './slapd.js';

const CA_FILE = join(TLS_DIR, 'ca.pem');

const countPeople = (env: Record<string, string>) =>
  withLdapConnection(configWithSync(env).sync.ldap!, async (ldap) => (await ldap.search(PEOPLE_DN, '(objectClass=inetOrgPerson)', ['uid'])).length);

/** The same server under another host name: `ldap://127.0.0.1:1234` -> `ldap://localhost:1234`. */
const byName = (url: string) => url.replace('127.0.0.1', 'localhost');

if (!SLAPD) {
  console.log(`\n${SKIP_MESSAGE}\n`);
  describe.skip('LDAP over TLS against slapd', () => {
    it('needs slapd', () => undefined);
  });
} else {
  describe('LDAP over TLS against slapd whose certificate names only the address 127.0.0.1', () => {
    let slapd: RunningSlapd;
    beforeAll(async () => {
      slapd = await startSlapd(COMPANY_LDIF, { tls: 'ip' });
    });
    afterAll(async () => {
      await slapd?.stop();
    });

    it('reads over StartTLS and over ldaps:// to the address when LDAP_CA_FILE names the CA', async () => {
      expect(await countPeople(ldapEnv(slapd.url, { LDAP_STARTTLS: 'true', LDAP_CA_FILE: CA_FILE }))).toBe(35);
      expect(await countPeople(ldapEnv(slapd.ldapsUrl!, { LDAP_CA_FILE: CA_FILE }))).toBe(35);
    });

    it('refuses the same server reached by a name its certificate does not carry, over StartTLS as over ldaps://', async () => {
      await expect(countPeople(ldapEnv(byName(slapd.url), { LDAP_STARTTLS: 'true', LDAP_CA_FILE: CA_FILE }))).rejects.toThrow(
        /^LDAP StartTLS at ldap:\/\/localhost:\d+ failed: Hostname\/IP does not match certificate's altnames: Host: localhost\. is not/,
      );
      await expect(countPeople(ldapEnv(byName(slapd.ldapsUrl!), { LDAP_CA_FILE: CA_FILE }))).rejects.toThrow(/Host: localhost\. is not/);
    });

    it('refuses a server whose certificate the configured CAs do not vouch for, and says which step failed', async () => {
      await expect(countPeople(ldapEnv(slapd.url, { LDAP_STARTTLS: 'true' }))).rejects.toThrow(/^LDAP StartTLS at ldap:\/\/127\.0\.0\.1:\d+ failed: .*certificate/);
      await expect(countPeople(ldapEnv(slapd.ldapsUrl!))).rejects.toThrow(/^LDAP bind as cn=reader,dc=example,dc=com at ldaps:\/\/127\.0\.0\.1:\d+ failed: .*certificate/);
      // LDAP_TLS_VERIFY=false accepts it (tests and trials only).
      expect(await countPeople(ldapEnv(slapd.ldapsUrl!, { LDAP_TLS_VERIFY: 'false' }))).toBe(35);
    });
  });

  describe('LDAP over TLS against slapd whose certificate names only the host name localhost', () => {
    let slapd: RunningSlapd;
    beforeAll(async () => {
      slapd = await startSlapd(COMPANY_LDIF, { tls: 'name' });
    });
    afterAll(async () => {
      await slapd?.stop();
    });

    it('reads over StartTLS and over ldaps:// to the name', async () => {
      expect(await countPeople(ldapEnv(byName(slapd.url), { LDAP_STARTTLS: 'true', LDAP_CA_FILE: CA_FILE }))).toBe(35);
      expect(await countPeople(ldapEnv(byName(slapd.ldapsUrl!), { LDAP_CA_FILE: CA_FILE }))).toBe(35);
    });

    it('refuses it reached by the address, which the certificate does not carry', async () => {
      await expect(countPeople(ldapEnv(slapd.url, { LDAP_STARTTLS: 'true', LDAP_CA_FILE: CA_FILE }))).rejects.toThrow(
        /^LDAP StartTLS at ldap:\/\/127\.0\.0\.1:\d+ failed: .*IP: 127\.0\.0\.1 is not in the cert's list: $/,
      );
    });
  });
}
