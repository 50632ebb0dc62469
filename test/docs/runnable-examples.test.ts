import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, cliEnv, startCli } from '../cli/run-cli.js';

/**
 * The README and docs/ mark shell examples that work on the demo as ```sh runnable. Each one runs here, in
 * bash with -euo pipefail, against `collab-host serve` started on a fresh store with the demo data, as a
 * newcomer would after `npm start`: `$BASE`, `$TOKEN` and `$KEY` are what the banner's export line sets (the
 * address, the demo user's token, the management key); http://127.0.0.1:3000 becomes the server's real address. `npx collab-host` runs the
 * sources. An example that stops working fails here. The same pass checks every relative link.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const DOC_ADDRESS = 'http://127.0.0.1:3000';

interface Example {
  doc: string;
  line: number;
  script: string;
}

function runnableExamples(doc: string): Example[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    if (lines[i]!.trim() !== '```sh runnable') continue;
    const start = i + 1;
    const end = lines.indexOf('```', start);
    examples.push({ doc, line: start, script: lines.slice(start, end).join('\n') });
    i = end;
  }
  return examples;
}

const EXAMPLES = DOCS.flatMap(runnableExamples);

function bash(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { env, cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('runnable examples of the README and docs/', { timeout: 120_000 }, () => {
  let server: Awaited<ReturnType<typeof startCli>>;
  let env: NodeJS.ProcessEnv;
  let address = '';
  let prelude = '';
  const dir = mkdtempSync(join(tmpdir(), 'ch-examples-'));

  beforeAll(async () => {
    const base = cliEnv(`sqlite:${join(dir, 'collab-host.db')}`, { PORT: '0', LOG_LEVEL: 'warn' });
    server = await startCli(['serve'], { cwd: dir, env: base, ready: /console: .*\n/, timeoutMs: 90_000 });
    const banner = server.stdout();
    address = /listening on (\S+)/.exec(banner)![1]!;
    const token = /token of user zhangsan[^\n]*\n {2}(\S+)\n/.exec(banner)![1]!;
    const key = /management API and console key[^\n]*\n {2}(\S+)\n/.exec(banner)![1]!;
    // `npx collab-host` in an example runs the sources, with the server's own settings.
    prelude = `collab-host() { ${[process.execPath, ...CLI_ENTRY].map((part) => `'${part}'`).join(' ')} "$@"; }`;
    // What the banner's `export BASE=… TOKEN=… KEY=…` line sets, as a newcomer pastes it.
    env = { ...base, BASE: address, TOKEN: token, KEY: key, BASH_ENV: '' };
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('finds runnable examples in the README and in docs/', () => {
    expect(EXAMPLES.filter((example) => example.doc === 'README.md').length).toBeGreaterThanOrEqual(2);
    expect(EXAMPLES.filter((example) => example.doc.startsWith('docs/')).length).toBeGreaterThanOrEqual(3);
  });

  for (const example of EXAMPLES) {
    it(`${example.doc}:${example.line} runs`, async () => {
      const script = example.script.replaceAll(DOC_ADDRESS, address).replaceAll('npx collab-host', 'collab-host');
      const result = await bash(`${prelude}\n${script}`, env, dir);
      // The script's output in the message: a failure says why.
      expect(result.code, `${example.doc}:${example.line}\n${example.script}\n--- its output:\n${result.output}`).toBe(0);
    });
  }
});

/** The anchors of a Markdown file's headings, as GitHub makes them. */
function anchorsOf(path: string): Set<string> {
  const headings = readFileSync(path, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line));
  // GitHub slugs a heading's text as shown: a link in it counts by its label.
  return new Set(
    headings.map((line) =>
      line
        .replace(/^#+ /, '')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

describe('links of the README and docs/', () => {
  it('point at files that exist, inside the repository, and at headings that exist', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      // Links inside code (`[label](link)` in a message format) are examples, not links.
      const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
      for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!;
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const path = file === '' ? join(ROOT, doc) : resolve(ROOT, dirname(doc), file);
        if (!path.startsWith(ROOT) || !existsSync(path)) broken.push(`${doc}: ${target}`);
        else if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
      }
      if (text.includes('../shared/')) broken.push(`${doc}: refers to ../shared/, which a clone does not have`);
    }
    expect(broken).toEqual([]);
  });
});
