/**
 * The layers of collab-host (docs/architecture.md), enforced by `npm run lint`:
 *
 *   cli/  ->  server.ts, app.ts (composition)  ->  HTTP layers: callbacks/ manage/ scim/ console/ http/
 *         ->  domain: auth/ directory/ events/ notify/ platform/ snapshot/ sync/ storage/ audit/ retention/ backup/
 *         ->  store/
 *
 * Dependencies point down only; Fastify lives in the HTTP layers and the composition; the database drivers
 * and the dialect live in store/; conformance/ (the kit and the simulator) imports nothing of the server;
 * no cycles.
 */
const HTTP = '^src/(callbacks|manage|scim|console|http)/';
const DOMAIN = '^src/(auth|directory|events|notify|platform|snapshot|sync|storage|audit|retention|backup)/';
const COMPOSITION = '^src/(composition/|index\\.ts$)';

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'Modules must not depend on each other in a circle.', from: {}, to: { circular: true } },
    {
      name: 'cli-only-from-cli',
      severity: 'error',
      comment: 'Commands are the top layer: nothing below imports them.',
      from: { pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'composition-from-top-only',
      severity: 'error',
      comment: 'app.ts, server.ts and the composition modules are imported by the commands (and each other), never by the layers they compose.',
      from: { path: '^src/', pathNot: ['^src/cli/', COMPOSITION] },
      to: { path: COMPOSITION },
    },
    {
      name: 'app-context-for-routes',
      severity: 'error',
      comment: 'AppContext is what the composition hands the route modules: the HTTP layers read its type, nothing below them does.',
      from: { path: '^src/', pathNot: [HTTP, COMPOSITION, '^src/http/app-context\\.ts$'] },
      to: { path: '^src/http/app-context\\.ts$' },
    },
    {
      name: 'http-not-from-below',
      severity: 'error',
      comment: 'The domain and the store never see HTTP: no imports of the HTTP layers from them.',
      from: { path: [DOMAIN, '^src/store/'] },
      to: { path: HTTP },
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
      from: { path: '^src/store/' },
      to: { path: DOMAIN, pathNot: '^src/directory/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'database-drivers-in-store-only',
      severity: 'error',
      comment: 'Nothing outside store/ knows which database it runs on.',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: ['(^|/)node_modules/(better-sqlite3|pg)/', '^src/store/(dialect|sqlite/|postgres/)'] },
    },
    {
      name: 'conformance-is-independent',
      severity: 'error',
      comment: 'The conformance kit and the simulator speak HTTP to any server: they import nothing of collab-host.',
      from: { path: '^src/conformance/' },
      to: { path: '^src/', pathNot: '^src/conformance/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
