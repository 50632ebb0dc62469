import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every environment variable the configuration reads, as the code names it (`'NAME'` in quotes, `env.NAME`). */
async function variablesTheCodeReads(): Promise<string[]> {
  const files = [...(await readdir('src/config')).map((name) => join('src/config', name))];
  const names = new Set<string>();
  for (const file of files) {
    const source = await readFile(file, 'utf8');
    for (const match of source.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST)'|env\.([A-Z][A-Z0-9_]+)/g)) names.add((match[1] ?? match[2])!);
  }
  return [...names].sort();
}

describe('docs/configuration.md', () => {
  it('names every variable the configuration reads', async () => {
    const doc = await readFile('docs/configuration.md', 'utf8');
    const names = await variablesTheCodeReads();
    // The scan itself must find the variables, or the check below proves nothing.
    expect(names).toEqual(expect.arrayContaining(['DATABASE_URL', 'TOKEN_SECRET', 'LDAP_URL', 'FILE_STORAGE', 'NODE_ENV', 'PORT', 'LDAP_STARTTLS']));
    expect(names.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });
});
