import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectKey } from '../../src/storage/object-key.js';
import { cliEnv, progressSummary, runCli } from '../cli/run-cli.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';

const DEMO = fileURLToPath(new URL('../../demo/snapshot.json', import.meta.url));
const WELCOME = readFileSync(fileURLToPath(new URL('../../demo/files/welcome.txt', import.meta.url)));

describe('collab-host storage usage', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'ch-storage-usage-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = (args: string[]) => runCli(['storage', ...args], { cwd: dir, env: cliEnv(`sqlite:${join(dir, 'collab-host.db')}`) });

  it('usage: --help exits 0, a missing or malformed --to exits 2', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: collab-host storage migrate --to URL/);
    expect((await cli(['migrate'])).code).toBe(2);
    const bad = await cli(['migrate', '--to', 'ftp://files']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to must be database, fs:DIR or s3://BUCKET/PREFIX, not "ftp://files"');
    expect((await cli(['orphans', '--dry-run'])).code).toBe(2);
  });
});

// Each command is a fresh Node process compiling TypeScript through tsx: seconds each on two busy cores.
for (const dialect of dialects) {
  describe(`collab-host storage migrate and verify on the demo data [${dialect}]`, { timeout: 180_000 }, () => {
    let dir: string;
    let files: string;
    let env: NodeJS.ProcessEnv;
    let dropSchema = async () => undefined as void;
    const cli = (args: string[], extra: Record<string, string> = {}) => runCli(['storage', ...args], { cwd: dir, env: { ...env, ...extra } });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ch-storage-cli-'));
      files = join(dir, 'files');
      let databaseUrl = `sqlite:${join(dir, 'data', 'collab-host.db')}`;
      if (dialect !== 'sqlite') {
        const { url, drop } = await freshStore(dialect);
        dropSchema = drop;
        databaseUrl = url;
      }
      env = cliEnv(databaseUrl);
      const imported = await runCli(['import', DEMO], { cwd: dir, env });
      expect(imported.stderr).toMatch(progressSummary('import', 'written'));
      expect(imported.stdout).toContain('1 stored content');
    }, 60_000);
    afterAll(async () => {
      await dropSchema();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a dry run copies nothing; the migration copies, checks, and says to switch FILE_STORAGE', async () => {
      const dry = await cli(['migrate', '--to', `fs:${files}`, '--dry-run']);
      expect(dry).toMatchObject({ code: 0, stderr: expect.stringMatching(progressSummary('storage migrate', 'checked')) });
      expect(dry.stdout).toBe(`would copy 1 files (${WELCOME.length} bytes) to fs:${files}; 0 already there; 0 would be served from there at once\n`);

      const run = await cli(['migrate', '--to', `fs:${files}`]);
      expect(run).toMatchObject({ code: 0, stderr: expect.stringMatching(progressSummary('storage migrate', 'copied')) });
      expect(run.stderr).toContain(`storage migrate: copied, ${WELCOME.length} bytes in`);
      expect(run.stdout).toContain(`copied 1 files (${WELCOME.length} bytes) to fs:${files}, each read back with its recorded SHA-256`);
      expect(run.stdout).toContain(`next: set FILE_STORAGE=fs:${files} and restart collab-host.`);
      expect(readFileSync(join(files, objectKey('welcome-txt'))).equals(WELCOME)).toBe(true);
    });

    it('after the switch, migrating again hands the file over; verify checks it and names a file that no longer matches (exit 1)', async () => {
      const switched = { FILE_STORAGE: `fs:${files}` };
      const handOver = await cli(['migrate', '--to', `fs:${files}`], switched);
      expect(handOver).toMatchObject({ code: 0, stderr: expect.stringMatching(progressSummary('storage migrate', 'copied')) });
      expect(handOver.stdout).toContain('1 now served from there');
      expect(handOver.stdout).toContain('FILE_STORAGE already names');

      expect(await cli(['verify'], switched)).toMatchObject({ code: 0, stdout: `checked 1 stored files (${WELCOME.length} bytes) in fs:${files}: all match\n` });
      writeFileSync(join(files, objectKey('welcome-txt')), 'changed on disk');
      const broken = await cli(['verify'], switched);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/^welcome-txt: fs:.* holds 15 bytes with SHA-256 [0-9a-f]{64}; recorded: 401 bytes/);
      expect(readdirSync(files)).toHaveLength(1);
      writeFileSync(join(files, objectKey('welcome-txt')), WELCOME);
    });

    it('export --out reads the bytes from fs:DIR; import --replace into an empty store puts them in its FILE_STORAGE, where verify finds them', async () => {
      const exported = await runCli(['export', '--out', join(dir, 'backup', 'demo.json')], { cwd: dir, env: { ...env, FILE_STORAGE: `fs:${files}` } });
      expect(exported).toMatchObject({ code: 0, stderr: expect.stringContaining('1 stored contents in demo-contents/') });
      expect(readFileSync(join(dir, 'backup', 'demo-contents', 'welcome-txt.txt')).equals(WELCOME)).toBe(true);

      const other = join(dir, 'other-files');
      const otherEnv = { ...cliEnv(`sqlite:${join(dir, 'other.db')}`), FILE_STORAGE: `fs:${other}` };
      const imported = await runCli(['import', '--replace', join(dir, 'backup', 'demo.json')], { cwd: dir, env: otherEnv });
      expect(imported).toMatchObject({ code: 0, stderr: expect.stringMatching(progressSummary('import', 'written')) });
      expect(imported.stdout).toContain(`1 stored content written to fs:${other}`);
      expect(readFileSync(join(other, objectKey('welcome-txt'))).equals(WELCOME)).toBe(true);
      expect(await runCli(['storage', 'verify'], { cwd: dir, env: otherEnv })).toMatchObject({
        code: 0,
        stdout: `checked 1 stored files (${WELCOME.length} bytes) in fs:${other}: all match\n`,
      });
    });

    it('storage orphans lists the object of a file removed from the directory, with its path', async () => {
      const switched = { FILE_STORAGE: `fs:${files}` };
      const snapshot = JSON.parse(readFileSync(DEMO, 'utf8')) as { files: Array<{ id: string }> };
      const without = join(dir, 'without-welcome.json');
      writeFileSync(without, JSON.stringify({ ...snapshot, files: snapshot.files.filter((file) => file.id !== 'welcome-txt') }));
      expect((await runCli(['import', '--replace', without], { cwd: dir, env: { ...env, ...switched } })).code).toBe(0);
      const listed = await cli(['orphans'], switched);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(listed.stdout).toMatch(new RegExp(`^${join(files, objectKey('welcome-txt'))}\t${WELCOME.length} bytes\tlast written \\d{4}-`));
      expect(listed.stdout).toContain(`1 objects (${WELCOME.length} bytes) in fs:${files} belong to no stored file`);
    });
  });
}
