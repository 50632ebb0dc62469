import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const KIT = fileURLToPath(new URL('../../src/conformance/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the kit depends on nothing but the interface', () => {
  it('imports only node built-ins and files inside src/conformance', () => {
    const outside: string[] = [];
    for (const file of sources(KIT)) {
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
        const spec = specifier as string;
        if (spec.startsWith('node:')) continue;
        const target = spec.startsWith('.') ? resolve(dirname(file), spec) : spec;
        if (!spec.startsWith('.') || relative(KIT, target).startsWith('..')) outside.push(`${relative(KIT, file)} imports ${spec}`);
      }
    }
    expect(outside).toEqual([]);
    expect(sources(KIT).length).toBeGreaterThan(10);
  });
});
