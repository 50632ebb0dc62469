#!/usr/bin/env node
// The `prepare` script: `npm ci` and `npm install` build dist/, so `npm start` works right after them.
// An install without devDependencies (`npm ci --omit=dev`) has no compiler: it keeps the dist/ it was
// given (copied from a build stage) and says so instead of failing the install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

// `npx collab-host` in a checkout links the checkout into npx's cache and runs `prepare` there: the
// dist/ that `npm ci` built is already here, so the first call need not rebuild it (twenty seconds).
if (process.env.npm_command === 'exec' && existsSync(new URL('../dist/cli/main.js', import.meta.url))) process.exit(0);

try {
  createRequire(import.meta.url).resolve('typescript');
} catch {
  process.stderr.write('collab-host: typescript is not installed (devDependencies omitted): not building; dist/ must come from `npm run build`\n');
  process.exit(0);
}
const npm = process.env.npm_execpath;
const run = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(run.status ?? 1);
