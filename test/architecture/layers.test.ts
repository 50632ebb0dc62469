import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

// The project's own rule set, as `npm run lint` runs it (docs/architecture.md).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** `rule: from -> to` for every violation of a cruise of `src/` under `baseDir`. */
async function violations(baseDir: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(CONFIG);
  const result = await cruise(['src'], { ...options, validate: true, baseDir }, {}, { tsConfig: extractTSConfig(join(baseDir, 'tsconfig.json')) });
  const { summary } = result.output as ICruiseResult;
  return summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`);
}

const trees: string[] = [];
afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

/** A throw-away project: the given files under src/, a NodeNext tsconfig, and the project's node_modules. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'collab-host-layers-'));
  trees.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'src', path)), { recursive: true });
    writeFileSync(join(dir, 'src', path), text);
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' }, include: ['src'] }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

const LEAF = 'export const value = 1;\n';
const uses = (specifier: string) => `import { value } from '${specifier}';\nexport const copy = value;\n`;

describe('the layer rules', () => {
  it('pass on src/ as it is', { timeout: 120_000 }, async () => {
    expect(await violations(ROOT)).toEqual([]);
  });

  it('let dependencies point down: HTTP -> domain -> store, type-only imports of the domain from the store', async () => {
    const dir = tree({
      'callbacks/files.ts': uses('../auth/check.js'),
      'auth/check.ts': uses('../store/rows.js'),
      'store/rows.ts': "import type { Port } from '../events/port.js';\nexport const value = 1;\nexport type P = Port;\n",
      'events/port.ts': 'export interface Port { run(): void }\n',
      'cli/main.ts': uses('../composition/app.js'),
      'composition/app.ts':
        "import type { FastifyInstance } from 'fastify';\nimport { copy } from '../callbacks/files.js';\nexport const value: number = copy;\nexport type App = FastifyInstance;\n",
    });
    expect(await violations(dir)).toEqual([]);
  });

  const upward: Array<[string, Record<string, string>, string]> = [
    ['the domain imports an HTTP layer', { 'auth/check.ts': uses('../http/errors.js'), 'http/errors.ts': LEAF }, 'http-not-from-below: src/auth/check.ts -> src/http/errors.ts'],
    ['the store imports domain code', { 'store/rows.ts': uses('../events/outbox.js'), 'events/outbox.ts': LEAF }, 'store-is-the-bottom: src/store/rows.ts -> src/events/outbox.ts'],
    [
      'run-time code imports a migration',
      { 'store/reads/areas.ts': uses('../schema/migrations/070-areas.js'), 'store/schema/migrations/070-areas.ts': LEAF },
      'migrations-are-frozen: src/store/reads/areas.ts -> src/store/schema/migrations/070-areas.ts',
    ],
    [
      'the domain imports the composition',
      { 'sync/deps.ts': uses('../composition/directory-writes.js'), 'composition/directory-writes.ts': LEAF },
      'composition-from-top-only: src/sync/deps.ts -> src/composition/directory-writes.ts',
    ],
    [
      'the domain imports AppContext',
      { 'auth/check.ts': uses('../http/app-context.js'), 'http/app-context.ts': LEAF },
      'http-not-from-below: src/auth/check.ts -> src/http/app-context.ts',
    ],
    [
      'the configuration imports the store',
      { 'config/database.ts': uses('../store/database.js'), 'store/database.ts': LEAF },
      'config-below-the-layers: src/config/database.ts -> src/store/database.ts',
    ],
    [
      'a shared helper imports the configuration',
      { 'shared/duration.ts': uses('../config/config.js'), 'config/config.ts': LEAF },
      'shared-imports-nothing: src/shared/duration.ts -> src/config/config.ts',
    ],
    [
      'a domain module imports a loose file at the root of src/',
      { 'auth/check.ts': uses('../helpers.js'), 'helpers.ts': LEAF },
      'outside-the-layers: src/auth/check.ts -> src/helpers.ts',
    ],
    [
      'a folder no layer names imports the store',
      { 'widgets/make.ts': uses('../store/rows.js'), 'store/rows.ts': LEAF },
      'outside-the-layers: src/widgets/make.ts -> src/store/rows.ts',
    ],
    [
      'a route module reaches the store',
      { 'manage/routes.ts': uses('../store/rows.js'), 'store/rows.ts': LEAF },
      'routes-call-services: src/manage/routes.ts -> src/store/rows.ts',
    ],
    ['a route module imports a command', { 'manage/routes.ts': uses('../cli/main.js'), 'cli/main.ts': LEAF }, 'cli-only-from-cli: src/manage/routes.ts -> src/cli/main.ts'],
    [
      'the domain knows the dialect',
      { 'events/outbox.ts': uses('../store/sqlite/claim.js'), 'store/sqlite/claim.ts': LEAF },
      'database-drivers-in-store-only: src/events/outbox.ts -> src/store/sqlite/claim.ts',
    ],
    [
      'the conformance kit imports the server',
      { 'conformance/check.ts': uses('../directory/types.js'), 'directory/types.ts': LEAF },
      'conformance-is-independent: src/conformance/check.ts -> src/directory/types.ts',
    ],
  ];
  it.each(upward)('fail when %s', async (_what, files, expected) => {
    expect(await violations(tree(files))).toEqual([expected]);
  });

  // The rules name folders, never files: a module nobody has named yet is held to its folder's layer.
  const below = ['auth', 'directory', 'directory-changes', 'events', 'notify', 'platform', 'snapshot', 'sync', 'storage', 'audit', 'retention', 'backup', 'store'];
  it.each(below)('hold a new module of %s/ to its layer', async (folder) => {
    const found = await violations(tree({ [`${folder}/brand-new.ts`]: uses('../manage/routes.js'), 'manage/routes.ts': LEAF }));
    expect(found).toEqual([`http-not-from-below: src/${folder}/brand-new.ts -> src/manage/routes.ts`]);
  });

  it('fail on a loose file at the root of src/ even when nothing imports it', async () => {
    expect(await violations(tree({ 'index.ts': LEAF, 'helpers.ts': LEAF }))).toEqual(['outside-the-layers: src/helpers.ts -> src/helpers.ts']);
  });

  it('fail when the domain imports Fastify', async () => {
    const found = await violations(tree({ 'auth/guard.ts': "import type { FastifyRequest } from 'fastify';\nexport type R = FastifyRequest;\n" }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^fastify-in-http-layers-only: src\/auth\/guard\.ts -> .*node_modules\/fastify\//);
  });

  it('fail on a cycle, even of type-only imports', async () => {
    const found = await violations(
      tree({
        'directory/port.ts': "import type { Hit } from './hits.js';\nexport interface Port { find(): Hit }\n",
        'directory/hits.ts': "import type { Port } from './port.js';\nexport interface Hit { from: Port }\n",
      }),
    );
    // One report per cycle, from whichever of its modules comes first.
    expect(found).toEqual(['no-cycles: src/directory/hits.ts -> src/directory/port.ts']);
  });
});
