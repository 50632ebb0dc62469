#!/usr/bin/env node
// The `collab-host` command: runs the compiled JavaScript in dist/ (no TypeScript compiler at run time).
// dist/ is made by `npm run build`, which `npm ci` and `npm install` run through the `prepare` script.
import { existsSync } from 'node:fs';
import { disableProto } from './disable-proto.js';

disableProto();

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('collab-host: dist/ is missing: run `npm run build` first (npm ci and npm install run it)\n');
  process.exit(1);
}
await import(main.href);
