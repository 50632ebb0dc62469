import { readFileSync } from 'node:fs';

/** The version in collab-host's package.json (two levels above src/cli and dist/cli). */
export function packageVersion(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return packageJson.version;
}
