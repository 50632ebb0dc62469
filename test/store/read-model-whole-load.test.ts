import { describe, expect, it } from 'vitest';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { compactHeap } from '../../src/composition/compact-heap.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { describeEachStore } from '../helpers/stores.js';

/**
 * The step after a whole load of the read model (the server compacts the heap there, compact-heap.ts):
 * once after the first load, before the model is ready; again after a reload of everything; never after
 * an ordinary write.
 */
describeEachStore('the step after a whole load of the read model', (store) => {
  it('runs once before the model is ready, again after an import that replaces the directory, not after a write', async () => {
    await upsertTeams(store().db, [{ id: 'acme', name: 'Acme' }]);
    const states: string[] = [];
    const source = new StoreModelSource(store(), { afterWholeLoad: () => states.push(source.state) });
    try {
      await source.loaded;
      expect(states).toEqual(['loading']);
      expect(source.state).toBe('ready');

      await upsertUsers(store().db, [{ id: 'ann', name: 'Ann', email: null, avatar: null, teamId: 'acme', watermark: null, departmentIds: [] }]);
      await source.catchUp();
      expect(source.model.users.get('ann')?.name).toBe('Ann');
      expect(states).toEqual(['loading']);

      const snapshot = { teams: [{ id: 'acme', name: 'Acme' }], departments: [], users: [{ id: 'bob', name: 'Bob', teamId: 'acme' }], files: [] };
      const result = await importSnapshot(directoryChanges(store()), snapshot, { replace: true, allowEmpty: true });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      await source.catchUp();
      expect([...source.model.users.keys()]).toEqual(['bob']);
      expect(states).toEqual(['loading', 'ready']);
    } finally {
      await source.close();
    }
  }, 60_000);
});

describe('compactHeap', () => {
  it('gives back the garbage left behind and keeps what is live', () => {
    const live = Array.from({ length: 10_000 }, (_, index) => ({ id: `live-${index}` }));
    let garbage: unknown[] | undefined = Array.from({ length: 300_000 }, (_, index) => ({ id: `garbage-${index}`, list: [index] }));
    expect(garbage.length).toBe(300_000);
    garbage = undefined;
    const compaction = compactHeap();
    expect(compaction.heapUsedAfter).toBeLessThan(compaction.heapUsedBefore - 10_000_000);
    expect(compaction.heapTotalAfter).toBeGreaterThanOrEqual(compaction.heapUsedAfter);
    expect(live[9_999]!.id).toBe('live-9999');
    // A second call works the same (gc is taken once).
    expect(compactHeap().ms).toBeGreaterThanOrEqual(0);
  });
});
