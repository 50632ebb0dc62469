import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Client, type Entry } from 'ldapts';
import type { LdapConfig } from '../../config/sync.js';

/** One LDAP entry: its DN and attribute values (binary attributes as Buffers). */
export type LdapEntry = Entry;

/** The searches a sync needs from a bound LDAP connection. */
export interface LdapSearcher {
  /** Every entry below `baseDn` (subtree) matching `filter`, read in pages of LDAP_PAGE_SIZE. */
  search(baseDn: string, filter: string, attributes: readonly string[]): Promise<LdapEntry[]>;
}

/** Attributes that hold binary values (read as Buffers, not text). */
const BINARY_ATTRIBUTES = ['objectGUID', 'objectSid'];

/**
 * Connects (ldap://, ldaps://, or ldap:// upgraded with StartTLS), binds with LDAP_BIND_DN (anonymous
 * without it), runs `work`, and unbinds whatever happens. Failures name the step and the server, never
 * the password.
 */
export async function withLdapConnection<T>(config: LdapConfig, work: (searcher: LdapSearcher) => Promise<T>): Promise<T> {
  const host = hostOf(config.url);
  const tlsOptions: ConnectionOptions = {
    rejectUnauthorized: config.tlsVerify,
    ...(config.caFile === undefined ? {} : { ca: readFileSync(config.caFile) }),
    // The certificate is checked against LDAP_URL's host. StartTLS upgrades a socket that is already open,
    // and Node then checks `servername`, else `host`, else "localhost": give both (an IP is no server name).
    host,
    ...(isIP(host) === 0 ? { servername: host } : {}),
  };
  // ldapts speaks TLS from the first byte whenever it is given TLS options: only for ldaps://.
  const secure = /^ldaps:/i.test(config.url);
  const client = new Client({ url: config.url, timeout: config.timeoutMs, connectTimeout: config.timeoutMs, ...(secure ? { tlsOptions } : {}) });
  try {
    if (config.startTls) await step('StartTLS', config, () => client.startTLS(tlsOptions));
    if (config.bindDn !== undefined) await step(`bind as ${config.bindDn}`, config, () => client.bind(config.bindDn!, config.bindPassword ?? ''));
    return await work({
      async search(baseDn, filter, attributes) {
        return step(`search ${baseDn} ${filter}`, config, async () => {
          const entries: LdapEntry[] = [];
          const pages = client.searchPaginated(baseDn, {
            scope: 'sub',
            filter,
            attributes: [...attributes],
            paged: { pageSize: config.pageSize },
            explicitBufferAttributes: BINARY_ATTRIBUTES,
          });
          for await (const page of pages) entries.push(...page.searchEntries);
          return entries;
        });
      },
    });
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/** The host of an `ldap://` or `ldaps://` address, without IPv6 brackets. */
function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
}

async function step<T>(what: string, config: LdapConfig, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`LDAP ${what} at ${config.url} failed: ${reason}`);
  }
}
