import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'ldapts';

/**
 * A real OpenLDAP server for the LDAP tests: Debian's slapd, started on a free port with a fresh
 * configuration and database in a temporary directory, loaded from an LDIF fixture with slapadd.
 * `.ci/run` installs slapd when it is missing; without it the tests say that they skipped.
 */
export const SLAPD = ['/usr/sbin/slapd', '/usr/local/sbin/slapd'].find((path) => existsSync(path));
const SLAPADD = ['/usr/sbin/slapadd', '/usr/local/sbin/slapadd'].find((path) => existsSync(path));
const SCHEMA_DIR = '/etc/ldap/schema';
const MODULE_DIR = '/usr/lib/ldap';

export const SKIP_MESSAGE = '*** LDAP tests SKIPPED: slapd is not installed (apt-get install -y slapd ldap-utils; .ci/run does it) ***';

export const BASE_DN = 'dc=example,dc=com';
export const ROOT_DN = `cn=admin,${BASE_DN}`;
export const ROOT_PASSWORD = 'admin-secret-0123';
export const READER_DN = `cn=reader,${BASE_DN}`;
export const READER_PASSWORD = 'reader-secret-0123';

export interface RunningSlapd {
  url: string;
  /** `ldaps://` address, when started with `tls`. */
  ldapsUrl: string | undefined;
  /** A client bound as the root DN, for tests that change the directory. */
  admin(): Promise<Client>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Test-only CA and server certificates, one for the address 127.0.0.1, one for the name localhost (test/sync/fixtures/tls/README.md). */
export const TLS_DIR = fileURLToPath(new URL('./fixtures/tls/', import.meta.url));

/**
 * Starts slapd with `ldif` loaded. Non-root binds get at most `sizeLimit` entries per search page,
 * while paged searches may read everything (size.prtotal unlimited), so a sync that does not page fails.
 * `tls`: StartTLS and an ldaps:// listener too, with the certificate for the address (`ip`) or the name (`name`).
 */
export async function startSlapd(ldif: string, options: { sizeLimit?: number; tls?: 'ip' | 'name' } = {}): Promise<RunningSlapd> {
  if (!SLAPD || !SLAPADD) throw new Error(SKIP_MESSAGE);
  const dir = mkdtempSync(join(tmpdir(), 'collab-host-slapd-'));
  mkdirSync(join(dir, 'data'));
  const conf = join(dir, 'slapd.conf');
  const sizeLimit = options.sizeLimit ?? 20;
  writeFileSync(
    conf,
    [
      ...['core', 'cosine', 'inetorgperson', 'nis'].map((schema) => `include ${SCHEMA_DIR}/${schema}.schema`),
      `modulepath ${MODULE_DIR}`,
      'moduleload back_mdb',
      `pidfile ${join(dir, 'slapd.pid')}`,
      `sizelimit size.soft=${sizeLimit} size.hard=${sizeLimit} size.prtotal=unlimited`,
      ...(options.tls
        ? [
            `TLSCACertificateFile ${join(TLS_DIR, 'ca.pem')}`,
            `TLSCertificateFile ${join(TLS_DIR, `server-${options.tls}.pem`)}`,
            `TLSCertificateKeyFile ${join(TLS_DIR, `server-${options.tls}.key`)}`,
          ]
        : []),
      'database mdb',
      'maxsize 67108864',
      `suffix "${BASE_DN}"`,
      `rootdn "${ROOT_DN}"`,
      `rootpw ${ROOT_PASSWORD}`,
      `directory ${join(dir, 'data')}`,
      'index objectClass eq',
      'access to attrs=userPassword by self write by anonymous auth by * none',
      'access to * by * read',
      '',
    ].join('\n'),
  );
  const ldifPath = join(dir, 'fixture.ldif');
  writeFileSync(ldifPath, ldif);
  const load = spawnSync(SLAPADD, ['-f', conf, '-l', ldifPath], { encoding: 'utf8' });
  if (load.status !== 0) throw new Error(`slapadd failed: ${load.stderr}`);

  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = options.tls ? `ldaps://127.0.0.1:${await freePort()}` : undefined;
  const listeners = [url, ...(ldapsUrl ? [ldapsUrl] : [])].map((address) => `${address}/`).join(' ');
  const child: ChildProcess = spawn(SLAPD, ['-d', '0', '-f', conf, '-h', listeners], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitUntilAnswering(url, child, () => stderr);

  const clients: Client[] = [];
  return {
    url,
    ldapsUrl,
    async admin() {
      const client = new Client({ url });
      await client.bind(ROOT_DN, ROOT_PASSWORD);
      clients.push(client);
      return client;
    },
    async stop() {
      await Promise.allSettled(clients.map((client) => client.unbind()));
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilAnswering(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`slapd exited (${child.exitCode}): ${stderr()}`);
    const client = new Client({ url, connectTimeout: 500 });
    try {
      await client.bind(READER_DN, READER_PASSWORD);
      await client.unbind();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill('SIGTERM');
  throw new Error(`slapd did not answer on ${url}: ${stderr()}`);
}
