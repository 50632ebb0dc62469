import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';

/**
 * A real Active Directory domain controller for the AD preset's tests: Debian's Samba, provisioned
 * (`samba-tool domain provision`, about 15 s; once per machine and Samba version, then copied) into a
 * temporary directory and started in the foreground with only its LDAP service. It binds no network
 * port: its smb.conf names an interface the machine does not have, so it serves LDAP on its `ldapi`
 * socket alone, and the tests reach that socket through a TCP relay on a free port of 127.0.0.1 (LDAP
 * over TCP as the sync speaks it; every answer is Samba's). Several runs on one machine never collide on
 * port 389. `.ci/run` installs samba; without it, or without root (Samba's DC runs as root), the tests say
 * that they skipped.
 */
const SAMBA = '/usr/sbin/samba';
const SAMBA_TOOL = '/usr/bin/samba-tool';

export const AD_SKIP_REASON =
  !existsSync(SAMBA) || !existsSync(SAMBA_TOOL)
    ? 'samba is not installed (apt-get install -y samba; .ci/run does it)'
    : process.getuid?.() !== 0
      ? 'a Samba domain controller runs as root only'
      : undefined;
export const AD_SKIP_MESSAGE = `*** Active Directory tests SKIPPED: ${AD_SKIP_REASON} ***`;

export const AD_REALM = 'CORP.EXAMPLE.COM';
export const AD_BASE_DN = 'DC=corp,DC=example,DC=com';
export const AD_ADMIN_DN = `CN=Administrator,CN=Users,${AD_BASE_DN}`;
export const AD_ADMIN_PASSWORD = 'Admin-Secret-0123!';
/** TEST-NET-1 (RFC 5737): never a local address, so Samba listens on no network interface. */
const NO_INTERFACE = '192.0.2.1';

export interface RunningAd {
  /** `ldap://127.0.0.1:PORT`: the relay to the domain controller. */
  url: string;
  /** A client bound as Administrator. */
  admin(): Promise<Client>;
  /** Runs `samba-tool ARGS` against the domain controller's database (as an administrator on the DC does). */
  tool(...args: string[]): Promise<string>;
  /** How long provisioning took, in ms (0: a domain provisioned by an earlier run was copied). */
  provisionMs: number;
  stop(): Promise<void>;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

/**
 * A provisioned domain that has never run, kept in the temporary directory for the runs that follow (one per
 * Samba version): provisioning takes 15 s on an idle machine and over a minute on a busy one, a copy under
 * a second. Only smb.conf names the directory, and a copy rewrites it.
 */
async function provisionedTemplate(): Promise<{ dir: string; provisionMs: number }> {
  const version = (await run(SAMBA, ['-V'])).trim().replace(/[^A-Za-z0-9.-]+/g, '_');
  const dir = join(tmpdir(), `collab-host-ad-template-${TEMPLATE_VERSION}-${version}`);
  if (existsSync(join(dir, 'etc', 'smb.conf'))) return { dir, provisionMs: 0 };
  const building = mkdtempSync(`${dir}.building-`);
  const started = Date.now();
  try {
    await run(SAMBA_TOOL, [
      'domain',
      'provision',
      `--targetdir=${building}`,
      '--use-rfc2307',
      `--realm=${AD_REALM}`,
      '--domain=CORP',
      '--server-role=dc',
      '--dns-backend=NONE',
      '--host-name=dc1',
      `--adminpass=${AD_ADMIN_PASSWORD}`,
      `--option=interfaces = ${NO_INTERFACE}`,
      '--option=bind interfaces only = yes',
    ]);
    const conf = join(building, 'etc', 'smb.conf');
    writeFileSync(conf, readFileSync(conf, 'utf8').replaceAll(building, TEMPLATE_DIR_MARK));
    // Whole or not at all: a run that provisioned at the same time may have put its own in place first.
    renameSync(building, dir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(dir, 'etc', 'smb.conf'))) throw error;
  }
  return { dir, provisionMs: Date.now() - started };
}

/** Changed when the provisioning changes, so an old template is not used. */
const TEMPLATE_VERSION = 'v1';
/** Stands for the directory in the template's smb.conf. */
const TEMPLATE_DIR_MARK = '@DIR@';

/** A copy of the provisioned domain CORP.EXAMPLE.COM (RFC 2307 attributes, no DNS) with its LDAP service started. */
export async function startSambaAd(): Promise<RunningAd> {
  if (AD_SKIP_REASON !== undefined) throw new Error(AD_SKIP_MESSAGE);
  const template = await provisionedTemplate();
  const provisionMs = template.provisionMs;
  const dir = mkdtempSync(join(tmpdir(), 'collab-host-ad-'));
  cpSync(template.dir, dir, { recursive: true });
  // Written into the [global] section (provision keeps only some of the options it is given).
  const options = {
    'bind interfaces only': 'yes',
    interfaces: NO_INTERFACE,
    'server services': 'ldap',
    // Simple binds without TLS (the relay is local); Samba's default asks for a signed or TLS connection.
    'ldap server require strong auth': 'no',
    // No certificate to generate at start-up (slow on a busy machine).
    'tls enabled': 'no',
    'pid directory': join(dir, 'run'),
    'ncalrpc dir': join(dir, 'ncalrpc'),
    'winbindd socket directory': join(dir, 'winbindd'),
    'log file': join(dir, 'log.%m'),
  };
  const conf = join(dir, 'etc', 'smb.conf');
  const ours = new Set(Object.keys(options));
  const lines = readFileSync(conf, 'utf8')
    .replaceAll(TEMPLATE_DIR_MARK, dir)
    .split('\n')
    .filter((line) => !ours.has(line.split('=')[0]!.trim().toLowerCase()));
  lines.splice(lines.indexOf('[global]') + 1, 0, ...Object.entries(options).map(([name, value]) => `\t${name} = ${value}`));
  writeFileSync(conf, lines.join('\n'));

  // In the foreground (-i), one process (-M single: the quickest to start).
  const child: ChildProcess = spawn(SAMBA, ['-i', '-M', 'single', '-s', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const relay = await startRelay(join(dir, 'private', 'ldapi'));
  const url = `ldap://127.0.0.1:${(relay.server.address() as { port: number }).port}`;

  const log = join(dir, 'log.samba');
  const said = () => `${output}${existsSync(log) ? readFileSync(log, 'utf8') : ''}`;
  const stop = async () => {
    await Promise.allSettled(clients.map((client) => client.unbind()));
    relay.close();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const clients: Client[] = [];
  try {
    await waitUntilAnswering(url, child, said);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    provisionMs,
    async admin() {
      const client = new Client({ url });
      await client.bind(AD_ADMIN_DN, AD_ADMIN_PASSWORD);
      clients.push(client);
      return client;
    },
    tool: (...args) => run(SAMBA_TOOL, [...args, `--configfile=${conf}`, `-H`, `tdb://${join(dir, 'private', 'sam.ldb')}`]),
    stop,
  };
}

/** A TCP listener on a free port of 127.0.0.1 that carries each connection to the unix socket `path`. */
async function startRelay(path: string): Promise<{ server: Server; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ path });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    close() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`samba exited (${child.exitCode}): ${output()}`);
    const client = new Client({ url, connectTimeout: 1000, timeout: 2000 });
    try {
      await client.bind(AD_ADMIN_DN, AD_ADMIN_PASSWORD);
      await client.unbind();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill('SIGTERM');
  throw new Error(`samba did not answer on its ldapi socket within 60 s: ${output()}`);
}
