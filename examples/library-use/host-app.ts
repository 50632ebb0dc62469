/**
 * Library use: a host application serves collab-host's callbacks over its own directory and its own
 * session tokens. Run it with `npx tsx examples/library-use/host-app.ts`, then for example
 *   curl -H 'X-Platform-Token: session-ann' http://127.0.0.1:4000/files/roadmap
 */
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp, testConfig, openDatabase } from '../../src/index.js';
import type { TokenResolver, OpenDatabase } from '../../src/index.js';
import { InMemoryDirectory, type HostCompany } from './in-memory-directory.js';

/** The host's organisation and documents, as it already keeps them. */
export const COMPANY: HostCompany = {
  teams: [{ id: 'example', name: 'Example Ltd' }],
  departments: [
    { id: 'eng', name: 'Engineering', teamId: 'example', parentId: null },
    { id: 'web', name: 'Web', teamId: 'example', parentId: 'eng' },
  ],
  users: [
    { id: 'ann', name: 'Ann Lee', email: 'ann@example.com', avatar: null, teamId: 'example', departmentIds: ['web'] },
    { id: 'ben', name: 'Ben Ito', email: 'ben@example.com', avatar: null, teamId: 'example', departmentIds: ['eng'] },
    { id: 'cho', name: '曹操', email: null, avatar: null, teamId: 'example', departmentIds: [], watermark: ['CONFIDENTIAL'] },
  ],
  files: [
    {
      id: 'roadmap',
      name: 'Roadmap 2025',
      type: 'documentPro',
      creatorId: 'ben',
      teamId: 'example',
      createdAt: '2025-01-06T09:00:00Z',
      updatedAt: '2025-01-07T09:00:00Z',
      sharing: [{ principal: 'department:eng', role: 'editor' }],
    },
    {
      id: 'budget',
      name: 'Budget',
      type: 'spreadsheet',
      creatorId: 'cho',
      teamId: 'example',
      createdAt: '2025-01-02T09:00:00Z',
      updatedAt: '2025-01-03T09:00:00Z',
      sharing: [{ principal: 'user:ann', role: 'viewer' }],
    },
  ],
};

/** The host's own sessions: whatever token it gave the platform when the document was created. */
const SESSIONS = new Map([
  ['session-ann', 'ann'],
  ['session-ben', 'ben'],
  ['session-cho', 'cho'],
]);

const resolveSession: TokenResolver = (token) => {
  const userId = SESSIONS.get(token);
  return userId ? { ok: true, userId, expiresAt: Number.MAX_SAFE_INTEGER } : { ok: false, reason: 'forged' };
};

/**
 * Builds the host's app: collab-host's own small database still keeps events, reminders and the outbox
 * (in memory here; a file or PostgreSQL in production), while every directory question goes to the host.
 */
export async function buildHostApp(): Promise<{ app: FastifyInstance; store: OpenDatabase }> {
  const store = await openDatabase('sqlite::memory:');
  const config = testConfig({ publicUrl: 'http://127.0.0.1:4000', watermarkTemplate: ['{name}', '{date}'] });
  const app = await buildApp({ config, store, directory: new InMemoryDirectory(COMPANY), resolveToken: resolveSession, logger: false });
  return { app, store };
}

async function main(): Promise<void> {
  const { app, store } = await buildHostApp();
  const port = Number(process.env.PORT ?? 4000);
  await app.listen({ port, host: '127.0.0.1' });
  console.log(`host app on http://127.0.0.1:${port}`);
  console.log(`try: curl -H 'X-Platform-Token: session-ann' http://127.0.0.1:${port}/files/roadmap`);
  const stop = async () => {
    await app.close();
    await store.close();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
