import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { withKitKeys } from '../helpers/permissions.js';
import { describeEachStore } from '../helpers/stores.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
const NONE = { readable: false, commentable: false, editable: false, copyable: false, exportable: false, manageable: false };
const ALL = { readable: true, commentable: true, editable: true, copyable: true, exportable: true, manageable: true };
const OFF = { imageDownloadable: false, cutable: false };

/** A file's restrictions switching the kit's finer keys off, one by one (issue 24, docs/sharing.md "Permission keys"). */
describeEachStore("restrictions switch the kit's permission keys off", (store) => {
  let app: FastifyInstance;
  let original: Record<string, unknown>;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY });
    original = (await app.inject({ method: 'GET', url: '/api/files/plan', headers: admin })).json();
  });
  afterAll(async () => {
    await app.close();
  });

  const record = async () => (await app.inject({ method: 'GET', url: '/api/files/plan', headers: admin })).json();
  const put = (payload: Record<string, unknown>) => app.inject({ method: 'PUT', url: '/api/files/plan', headers: admin, payload });
  const permissionsAs = async (headers: Record<string, string>) => {
    const reply = await app.inject({ method: 'GET', url: '/files/plan', headers });
    expect(reply.statusCode).toBe(200);
    return reply.json().permissions;
  };
  const guestToken = async (role: string) => {
    const link = (await app.inject({ method: 'POST', url: '/api/files/plan/share-links', headers: admin, payload: { role } })).json();
    return (await app.inject({ method: 'POST', url: `/share-links/${link.code}/token`, payload: { name: `Guest ${role}` } })).json().token as string;
  };

  it('a key set to false is false for the manager and an editor; the others are derived as before', async () => {
    // The management API answers the complete form: copy and export, none of the nine while none is off.
    expect(original.restrictions).toEqual({ copy: true, export: true });
    expect((await put({ ...original, restrictions: OFF })).statusCode).toBe(200);
    expect(await record()).toEqual({ ...original, restrictions: { copy: true, export: true, cutable: false, imageDownloadable: false } });
    expect(await permissionsAs({ 'x-platform-token': tokenFor('zhang') })).toEqual({ ...withKitKeys(ALL), ...OFF });
    expect(await permissionsAs({ 'x-platform-token': tokenFor('lilei') })).toEqual({ ...withKitKeys({ ...ALL, manageable: false }), ...OFF });
    // A guest is capped too.
    expect(await permissionsAs({ 'x-platform-token': await guestToken('edit') })).toEqual({ ...withKitKeys({ ...ALL, manageable: false }), ...OFF });
  });

  it('an unknown key or a value that is not a boolean is 400 and changes nothing', async () => {
    const before = await record();
    for (const restrictions of [{ ...OFF, printable: false }, { cutable: 'no' }, { lockable: 0 }, { imageDownloadable: null }]) {
      const reply = await put({ ...original, restrictions });
      expect(reply.statusCode, JSON.stringify(restrictions)).toBe(400);
      expect(reply.json().error.code).toEqual(expect.any(String));
      expect(await record()).toEqual(before);
    }
  });

  it('export and import round-trip the switched-off keys', async () => {
    const exported = await exportSnapshot(store().db);
    expect(exported.files.find((file) => file.id === 'plan')?.restrictions).toEqual({ copy: true, export: true, cutable: false, imageDownloadable: false });
    expect((await importSnapshot(directoryChanges(store()), exported, { replace: true })).ok).toBe(true);
    expect(await exportSnapshot(store().db)).toEqual(exported);
    expect(await permissionsAs({ 'x-platform-token': tokenFor('lilei') })).toEqual({ ...withKitKeys({ ...ALL, manageable: false }), ...OFF });
  });

  it("caps a form_fill guest's formFillable; true or absent derives as today and the record keeps its shape", async () => {
    expect((await put({ ...original, restrictions: { formFillable: false, lockable: true } })).statusCode).toBe(200);
    expect(await record()).toEqual({ ...original, restrictions: { copy: true, export: true, formFillable: false } });
    expect(await permissionsAs({ 'x-platform-token': await guestToken('form_fill') })).toEqual(withKitKeys({ ...NONE, readable: true }, { formFillable: false }));
    expect(await permissionsAs({ 'x-platform-token': tokenFor('zhang') })).toEqual({ ...withKitKeys(ALL), formFillable: false });

    expect((await put(original)).statusCode).toBe(200);
    expect(await record()).toEqual(original);
    expect(await permissionsAs({ 'x-platform-token': tokenFor('zhang') })).toEqual(withKitKeys(ALL));
    expect(await permissionsAs({ 'x-platform-token': await guestToken('form_fill') })).toEqual(withKitKeys({ ...NONE, readable: true }, { formFillable: true }));
  });
});
