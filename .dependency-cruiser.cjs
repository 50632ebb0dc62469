/**
 * The layers of collab-host (docs/architecture.md), enforced by `npm run lint`. Every rule is keyed on folders:
 * a new file is covered by the folder it is put in, and a file outside every layer folder (a loose file in
 * src/, or a new folder no layer names) is itself a violation until the folder is given its layer below.
 *
 *   cli/  ->  composition/ (and index.ts, the package entry)
 *         ->  HTTP layers: callbacks/ manage/ scim/ console/ http/
 *         ->  domain: auth/ directory/ directory-changes/ events/ notify/ platform/ snapshot/ sync/ storage/
 *                     audit/ retention/ backup/
 *         ->  store/
 *         ->  config/ (validated configuration)  ->  shared/ (small helpers any layer may use)
 *
 * Dependencies point down only; Fastify lives in the HTTP layers and the composition; the database drivers
 * and the dialect live in store/; conformance/ (the kit and the simulator) imports nothing of the server;
 * no cycles.
 */
const folders = (...names) => `^src/(${names.join('|')})/`;
const CLI = folders('cli');
const COMPOSITION = '^src/(composition/|index\\.ts$)';
const ROUTES = folders('callbacks', 'manage', 'scim', 'console');
const HTTP = folders('callbacks', 'manage', 'scim', 'console', 'http');
const DOMAIN = folders('auth', 'directory', 'directory-changes', 'events', 'notify', 'platform', 'snapshot', 'sync', 'storage', 'audit', 'retention', 'backup');
const STORE = folders('store');
const CONFIG = folders('config');
const SHARED = folders('shared');
const CONFORMANCE = folders('conformance');
/** Every module of src/ that is in a layer; anything else is `outside-the-layers`. */
const LAYERED = [CLI, COMPOSITION, HTTP, DOMAIN, STORE, CONFIG, SHARED, CONFORMANCE];

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'Modules must not depend on each other in a circle.', from: {}, to: { circular: true } },
    {
      name: 'outside-the-layers',
      severity: 'error',
      comment: 'Every module of src/ is in a layer folder (index.ts, the package entry, is the one file at the root): give a new folder its layer in this file.',
      from: { path: '^src/', pathNot: LAYERED },
      to: {},
    },
    {
      name: 'outside-the-layers',
      severity: 'error',
      comment: 'Every module of src/ is in a layer folder (index.ts, the package entry, is the one file at the root): give a new folder its layer in this file.',
      from: {},
      to: { path: '^src/', pathNot: LAYERED },
    },
    {
      name: 'outside-the-layers',
      severity: 'error',
      comment: 'Every module of src/ is in a layer folder, one that imports nothing and nothing imports included.',
      from: { path: '^src/', pathNot: LAYERED, orphan: true },
      to: {},
    },
    {
      name: 'cli-only-from-cli',
      severity: 'error',
      comment: 'Commands are the top layer: nothing below imports them.',
      from: { path: '^src/', pathNot: CLI },
      to: { path: CLI },
    },
    {
      name: 'composition-from-top-only',
      severity: 'error',
      comment: 'composition/ (app, server, the wiring) is imported by the commands and the package entry, never by the layers it composes.',
      from: { path: '^src/', pathNot: [CLI, COMPOSITION] },
      to: { path: COMPOSITION },
    },
    {
      name: 'http-not-from-below',
      severity: 'error',
      comment: 'The domain and the store never see HTTP: no imports of the HTTP layers (AppContext in http/ included) from them.',
      from: { path: [DOMAIN, STORE] },
      to: { path: HTTP },
    },
    {
      name: 'routes-call-services',
      severity: 'error',
      comment: 'Route modules ask the services AppContext carries, never the store: they may import its types only.',
      from: { path: ROUTES },
      to: { path: STORE, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'fastify-in-http-layers-only',
      severity: 'error',
      comment: 'Fastify (and its plugins) only in the HTTP layers and the composition.',
      from: { path: '^src/', pathNot: [HTTP, COMPOSITION] },
      to: { path: '(^|/)node_modules/(fastify|@fastify/)' },
    },
    {
      name: 'store-is-the-bottom',
      severity: 'error',
      comment: 'store/ implements the ports of the domain: it may import their types (and directory/ rules), no other domain code.',
      from: { path: STORE },
      to: { path: DOMAIN, pathNot: '^src/directory/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'migrations-are-frozen',
      severity: 'error',
      comment:
        'A released migration never changes: only the migration runner (and the migrations themselves) import one; run-time code keeps its own copies of the names it shares with them.',
      from: { path: '^src/', pathNot: ['^src/store/schema/migrations/', '^src/store/schema/migration-runner[.]ts$'] },
      to: { path: '^src/store/schema/migrations/' },
    },
    {
      name: 'config-below-the-layers',
      severity: 'error',
      comment: 'The configuration is read by every layer: it imports only shared/ and the vocabulary of directory/, nothing that could import it back.',
      from: { path: CONFIG },
      to: { path: '^src/', pathNot: [CONFIG, SHARED, '^src/directory/'] },
    },
    {
      name: 'shared-imports-nothing',
      severity: 'error',
      comment: 'shared/ holds helpers any layer may use because they know nothing of the others: they import no other part of src/.',
      from: { path: SHARED },
      to: { path: '^src/', pathNot: SHARED },
    },
    {
      name: 'database-drivers-in-store-only',
      severity: 'error',
      comment: 'Nothing outside store/ knows which database it runs on.',
      from: { path: '^src/', pathNot: STORE },
      to: { path: ['(^|/)node_modules/(better-sqlite3|pg)/', '^src/store/(dialect|sqlite/|postgres/)'] },
    },
    {
      name: 'conformance-is-independent',
      severity: 'error',
      comment: 'The conformance kit and the simulator speak HTTP to any server: they import nothing of collab-host.',
      from: { path: CONFORMANCE },
      to: { path: '^src/', pathNot: CONFORMANCE },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
