import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, startCli } from '../cli/run-cli.js';
import { closedPortUrl } from './stand-in-platform.js';

const dir = mkdtempSync(join(tmpdir(), 'ch-walkthrough-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * docs/platform.md's simulator walkthrough, as a newcomer runs it after a plain `npm start`: no `.env`,
 * no TOKEN_SECRET (so only the token the server prints is valid), the demo data, the default app
 * credentials shared by the server, the simulator and the commands.
 */
describe('the simulator walkthrough after a plain npm start', { timeout: 180_000 }, () => {
  it('creates a document on the simulator, opens it in the editor page with the printed token, and reads its history', async () => {
    const port = new URL(await closedPortUrl()).port;
    // What a shell has after `npm start`: the defaults, except a free port for this test and a temp database.
    const env = { ...cliEnv(`sqlite:${join(dir, 'collab-host.db')}`, { PORT: port, LOG_LEVEL: 'warn' }), TOKEN_SECRET: '' };
    const server = await startCli(['serve'], { cwd: dir, env, ready: /curl -H .*\n/ });
    try {
      const token = /^token of user zhangsan .*\n {2}(\S+)$/m.exec(server.stdout())?.[1];
      expect(token).toBeDefined();
      const simulator = await startCli(['simulate', '--port', '0'], { cwd: dir, env, ready: /open one in the editor page: +(http:\/\/127\.0\.0\.1:\d+)\/editor/ });
      try {
        const simUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(simulator.stdout())![1]!;
        expect(simulator.stdout()).toContain(`callbacks to http://127.0.0.1:${port})`);
        const withPlatform = { ...env, PLATFORM_API_URL: simUrl };

        const created = await runCli(['create-doc', '--user', 'zhangsan', '--type', 'documentPro', '--name', '试用', '--file-id', 'trial'], { cwd: dir, env: withPlatform });
        expect({ code: created.code, stdout: created.stdout }).toEqual({ code: 0, stdout: 'trial\n' });

        // The command wrote the document from a process of its own: the server's directory in memory sees
        // it within its poll of the change feed (250 ms on SQLite, docs/scaling.md), as a newcomer's browser would.
        const open = async () => {
          const answer = await fetch(`${simUrl}/editor?fileId=trial&token=${encodeURIComponent(token!)}`);
          return { status: answer.status, html: await answer.text() };
        };
        let { status, html } = await open();
        for (let look = 0; status === 404 || (status === 400 && html.includes('GET /files/trial failed (404)')); look += 1) {
          if (look === 40) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
          ({ status, html } = await open());
        }
        expect(status, html).toBe(200);
        expect(html).toContain('<h1 id="title">试用</h1>');
        expect(html).toContain('Opened by <strong>张三</strong>');
        expect(html).toContain('<td>manageable</td><td class="yes">true</td>');

        const history = await runCli(['platform', 'history', '--file-id', 'trial', '--json'], { cwd: dir, env: withPlatform });
        expect(JSON.parse(history.stdout)).toMatchObject({ histories: [{ name: 'created' }], isLastPage: true });
      } finally {
        await simulator.stop();
      }
    } finally {
      await server.stop();
    }
  });
});
