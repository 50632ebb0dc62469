import { describe, expect, it } from 'vitest';
import { DirectoryService } from '../../src/directory/directory-service.js';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { TrustCache } from '../../src/events/trust-cache.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { upsertFiles, upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { documentBy } from '../sync/sync-helpers.js';

const person = (id: string) => ({ id, name: id, email: null, avatar: null, teamId: 'acme', watermark: null, departmentIds: [] });

/**
 * The events' trust answers (a user's state, permissions on a file) are kept in memory between directory
 * writes. Another process's write moves the store's version at its commit, but this instance's read model
 * takes it in later (its NOTIFY, its poll, or a whole reload after a bulk import): an answer asked for in
 * between is the model's answer from before the write. Once the model has the write, the next event must
 * be checked against it, not against what was kept.
 */
for (const dialect of dialects) {
  describe(`trust answers after another process's directory write [${dialect}]`, () => {
    it('follow the read model: a deactivation and a revoked grant are in force once the model has them', async () => {
      const fresh = await freshStore(dialect);
      const serving = await fresh.open();
      const other = await fresh.open();
      await upsertTeams(other.db, [{ id: 'acme', name: 'Acme' }]);
      await upsertUsers(other.db, [person('owner'), person('editor')]);
      await upsertFiles(other.db, [documentBy('owner', 'plan', 'acme')]);
      // The editor's grant (rank 3: editor).
      await other.db.insertInto('file_grants').values({ file_id: 'plan', principal_kind: 'user', principal_id: 'editor', role_rank: 3 }).execute();
      // No poll and no NOTIFY: the model takes in other processes' writes when told to (`catchUp`).
      const source = new StoreModelSource(serving, { listen: false });
      const trust = new TrustCache(new DirectoryService(new ModelDirectory(source, SqlDirectory.over(serving)), { watermarkTemplate: [] }));
      const ask = async () => {
        await trust.follow();
        return { state: await trust.userState('editor'), edit: (await trust.permissionsOn('plan', 'editor'))?.editable ?? false };
      };
      try {
        await source.loaded;
        expect(await ask()).toEqual({ state: 'active', edit: true });

        // Another process (an instance, an import, a DBA) deactivates the editor and revokes the grant.
        await other.db.updateTable('users').set({ active: 0 }).where('id', '=', 'editor').execute();
        await other.db.deleteFrom('file_grants').where('file_id', '=', 'plan').execute();
        // Asked before the model has it: the model's answer, from before the writes.
        expect(await ask()).toEqual({ state: 'active', edit: true });

        await source.catchUp();
        expect(await ask()).toEqual({ state: 'deactivated', edit: false });
      } finally {
        await source.close();
        await Promise.all([serving.close(), other.close()]);
        await fresh.drop();
      }
    }, 60_000);
  });
}
