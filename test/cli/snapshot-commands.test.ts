import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyUserToken } from '../../src/auth/user-token.js';
import { CLI_ENTRY, CLI_TOKEN_SECRET, cliEnv, progressSummary, runCli } from './run-cli.js';

const EXAMPLE = fileURLToPath(new URL('../snapshot/fixtures/contracts-example.json', import.meta.url));
const DEMO = fileURLToPath(new URL('../../demo/snapshot.json', import.meta.url));

// Each command is a fresh Node process compiling TypeScript through tsx: seconds each on two busy cores.
describe('collab-host import, export and token (child processes on a SQLite file)', { timeout: 180_000 }, () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => runCli(args, { cwd: dir, env });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ch-cli-'));
    env = cliEnv(`sqlite:${join(dir, 'data', 'collab-host.db')}`);
    const imported = await cli('import', EXAMPLE);
    expect(imported).toMatchObject({ code: 0, stderr: expect.stringMatching(progressSummary('import', 'written')) });
    expect(imported.stdout).toMatch(/^upserted 1 team, 2 departments, 2 users, 2 files \(3 grants, 0 stored contents\)\n/);
  }, 60_000);

  it('export prints the imported example as JSON, and importing that export changes nothing', async () => {
    const exported = await cli('export');
    expect(exported.code).toBe(0);
    const snapshot = JSON.parse(exported.stdout) as { users: Array<{ id: string }>; files: Array<{ id: string; teamId?: string }> };
    expect(snapshot.users.map((user) => user.id)).toEqual(['u1', 'u2']);
    expect(snapshot.files.find((file) => file.id === 'f2')?.teamId).toBe('t1');

    const file = join(dir, 'exported.json');
    writeFileSync(file, exported.stdout);
    expect((await cli('import', file)).code).toBe(0);
    expect((await cli('export')).stdout).toBe(exported.stdout);
  });

  it('import refuses a broken snapshot with every problem by path, exit 1, and writes nothing', async () => {
    const before = (await cli('export')).stdout;
    const broken = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { departments: Array<Record<string, unknown>>; files: Array<Record<string, unknown>> };
    broken.departments[0]!.parentId = 'd2';
    broken.files[1]!.createdAt = '2024-03-01 08:00';
    broken.files[1]!.ext = '.docx';
    const file = join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify(broken));

    const result = await cli('import', file);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'snapshot refused, nothing written (4 problems):',
        '  $.departments[0].parentId: makes a cycle: d1 -> d2 -> d1',
        '  $.departments[1].parentId: makes a cycle: d2 -> d1 -> d2',
        '  $.files[1].createdAt: must be a UTC time written YYYY-MM-DDThh:mm:ssZ (no milliseconds, no offset)',
        '  $.files[1].ext: must not start with a dot ("docx", not ".docx")',
        '',
      ].join('\n'),
    );
    expect((await cli('export')).stdout).toBe(before);
  });

  it('import says what is wrong with a file that is missing or not JSON', async () => {
    const missing = await cli('import', join(dir, 'nope.json'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*nope\.json: ENOENT/);
    writeFileSync(join(dir, 'bad.json'), '{ "teams": [');
    const bad = await cli('import', join(dir, 'bad.json'));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad\.json is not valid JSON/);
    expect((await cli('import')).stderr).toMatch(/usage: collab-host import FILE \[--replace\]/);
  });

  it('import checks its configuration before it reads the file (a snapshot of a company takes seconds to read)', async () => {
    const wrong = await runCli(['import', join(dir, 'nope.json')], { cwd: dir, env: { ...env, DATABASE_URL: 'oracle://db' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/DATABASE_URL must be sqlite:PATH/);
    expect(wrong.stderr).not.toMatch(/nope\.json/);
  });

  it('token prints a token for an existing user, honouring --ttl', async () => {
    const result = await cli('token', 'u1', '--ttl', '2h');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const verified = await verifyUserToken(result.stdout.trim(), CLI_TOKEN_SECRET);
    expect(verified).toMatchObject({ ok: true, userId: 'u1' });
    if (verified.ok) expect(verified.expiresAt - Date.now() / 1000).toBeGreaterThan(2 * 3600 - 60);
    if (verified.ok) expect(verified.expiresAt - Date.now() / 1000).toBeLessThanOrEqual(2 * 3600);
  });

  it('token exits 1 for an unknown user, 2 for a usage error, 0 with its usage for --help', async () => {
    const unknown = await cli('token', 'ghost');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^user "ghost" does not exist/);
    const badTtl = await cli('token', 'u1', '--ttl', 'soon');
    expect(badTtl.code).toBe(2);
    expect(badTtl.stderr).toMatch(/--ttl must be a duration[^\n]*\nusage: collab-host token/);
    const noUser = await cli('token');
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toMatch(/^expected 1 argument, got 0\nusage: collab-host token/);
    const unknownOption = await cli('token', 'u1', '--tll', '2h');
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toMatch(/^Unknown option '--tll'/);
    const help = await cli('token', '--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: collab-host token USER_ID \[--ttl 2h\]\n/);
  });

  it('--version prints the version; no command is a usage error', async () => {
    const version = await cli('--version');
    expect(version).toMatchObject({ code: 0, stdout: 'collab-host 0.1.0\n' });
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^usage: collab-host <command>/);
  });

  it('export into a pipe its reader closes early says so in one line and exits 1, leaving no temporary file', async () => {
    const users = Array.from({ length: 300 }, (_, index) => ({ id: `p${index}`, teamId: 'big', name: `Person ${index}`, email: `p${index}@example.com` }));
    const file = join(dir, 'big.json');
    writeFileSync(file, JSON.stringify({ teams: [{ id: 'big', name: 'Big' }], users }));
    const bigEnv = { ...cliEnv(`sqlite:${join(dir, 'big.db')}`), TMPDIR: join(dir, 'tmp') };
    mkdirSync(bigEnv.TMPDIR, { recursive: true });
    expect((await runCli(['import', file], { cwd: dir, env: bigEnv })).code).toBe(0);
    // Like `collab-host export | head -c 0`: the reader has closed the pipe before the first byte.
    const child = spawn(process.execPath, [...CLI_ENTRY, 'export'], { cwd: dir, env: bigEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(stderr).toBe('export: the reader of stdout closed it before the end of the snapshot\n');
    expect(code).toBe(1);
    // (tsx keeps its cache there too.)
    expect(readdirSync(bigEnv.TMPDIR).filter((name) => name.startsWith('collab-host-export-'))).toEqual([]);
  });

  it('export --out removes the parts a stopped export left beside FILE, and keeps those of one still running', async () => {
    const folder = join(dir, 'stopped');
    mkdirSync(folder);
    // Above the largest process id Linux hands out (2^22): no process has it.
    const gone = 4_194_399;
    writeFileSync(join(folder, `directory.json.partial-${gone}`), '{"teams": [');
    mkdirSync(join(folder, `directory-contents.partial-${gone}`));
    writeFileSync(join(folder, `directory-contents.partial-${gone}`, 'welcome-txt.txt'), 'half');
    // This test's own process stands for an export still writing.
    writeFileSync(join(folder, `directory.json.partial-${process.pid}`), '{"users": [');
    writeFileSync(join(folder, `other.json.partial-${gone}`), 'not this export');

    const out = join(folder, 'directory.json');
    const exported = await cli('export', '--out', out);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toBe(
      `removed directory.json.partial-${gone}, left by an export that was stopped\n` +
        `removed directory-contents.partial-${gone}, left by an export that was stopped\n` +
        `wrote ${out} (2 users, 2 files, 0 stored contents)\n`,
    );
    expect(readdirSync(folder).sort()).toEqual(['directory.json', `directory.json.partial-${process.pid}`, `other.json.partial-${gone}`]);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ users: [expect.anything(), expect.anything()] });
  });

  it('import --replace replaces everything; export --out carries stored contents to another store', async () => {
    const replaced = await cli('import', DEMO, '--replace');
    expect(replaced.stdout).toMatch(/^replaced the directory with 1 team, 12 departments, 24 users, 10 files \(20 grants, 1 stored content\)\n/);
    expect((await cli('token', 'u1')).code).toBe(1);

    const plain = await cli('export');
    expect(plain.stderr).toMatch(/1 stored file content\(s\) not included/);

    const out = join(dir, 'backup', 'directory.json');
    expect((await cli('export', '--out', out)).code).toBe(0);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { files: Array<{ id: string; contentFile?: string }> };
    const welcome = written.files.find((file) => file.id === 'welcome-txt');
    expect(welcome?.contentFile).toBe('directory-contents/welcome-txt.txt');
    expect(readFileSync(join(dir, 'backup', welcome!.contentFile!), 'utf8')).toBe(readFileSync(fileURLToPath(new URL('../../demo/files/welcome.txt', import.meta.url)), 'utf8'));

    const otherEnv = cliEnv(`sqlite:${join(dir, 'other.db')}`);
    const imported = await runCli(['import', out], { cwd: dir, env: otherEnv });
    expect(imported.stdout).toMatch(/1 stored content\)/);
    expect((await runCli(['export'], { cwd: dir, env: otherEnv })).stdout).toBe(plain.stdout);
    expect(existsSync(join(dir, 'other.db'))).toBe(true);

    // Bytes that are no longer the recorded ones: an export over the earlier one stops, and leaves that
    // one whole (its snapshot and its bytes), with no part of its own.
    const database = new SQLite(join(dir, 'data', 'collab-host.db'));
    database.prepare("UPDATE file_contents SET content = ? WHERE file_id = 'welcome-txt'").run(Buffer.from('not the welcome text'));
    database.close();
    const damaged = await cli('export', '--out', out);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toMatch(/export stopped, .*directory\.json not written: the stored bytes of file welcome-txt have SHA-256 [0-9a-f]{64}, not the recorded/);
    expect(readdirSync(join(dir, 'backup')).sort()).toEqual(['directory-contents', 'directory.json']);
    const thirdEnv = cliEnv(`sqlite:${join(dir, 'third.db')}`);
    expect((await runCli(['import', out], { cwd: dir, env: thirdEnv })).stdout).toMatch(/1 stored content\)/);
    expect((await runCli(['export'], { cwd: dir, env: thirdEnv })).stdout).toBe(plain.stdout);

    // A directory without stored bytes exported over it: the earlier bytes go with the earlier snapshot.
    expect((await cli('import', EXAMPLE, '--replace')).code).toBe(0);
    const bare = await cli('export', '--out', out);
    expect(bare).toMatchObject({ code: 0, stderr: `wrote ${out} (2 users, 2 files, 0 stored contents)\n` });
    expect(readdirSync(join(dir, 'backup'))).toEqual(['directory.json']);

    // Where the bytes would go is a file of someone's: refused before anything is written.
    writeFileSync(join(dir, 'notes-contents'), 'mine');
    const refused = await cli('export', '--out', join(dir, 'notes.json'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/notes-contents exists and is not a folder/);
    expect(readFileSync(join(dir, 'notes-contents'), 'utf8')).toBe('mine');
    expect(existsSync(join(dir, 'notes.json'))).toBe(false);
  });
});
