import { describe, expect, it } from 'vitest';
import { boundedScan, SCAN_LIMITS } from '../../src/sync/scim/scim-scan.js';

describe('a filter scan that no index serves is bounded', () => {
  it('gives the event loop a turn between slices, so other requests (a health check) are answered meanwhile', async () => {
    const items = Array.from({ length: SCAN_LIMITS.slice * 10 }, (_, index) => index);
    let seen = 0;
    let seenWhenProbeRan: number | undefined;
    setImmediate(() => (seenWhenProbeRan = seen));
    const kept = await boundedScan(items, (item) => {
      seen += 1;
      return item % 2 === 0;
    });
    expect(kept).toHaveLength(items.length / 2);
    expect(seenWhenProbeRan).toBeDefined();
    expect(seenWhenProbeRan!).toBeLessThan(items.length);
  });

  it(`runs at most ${SCAN_LIMITS.concurrent} scans at once; the others wait their turn and still finish`, async () => {
    const length = SCAN_LIMITS.slice * 3;
    let active = 0;
    let most = 0;
    const scans = Array.from({ length: 6 }, () =>
      boundedScan(
        Array.from({ length }, (_, index) => index),
        (index) => {
          if (index === 0) most = Math.max(most, (active += 1));
          if (index === length - 1) active -= 1;
          return true;
        },
      ),
    );
    const results = await Promise.all(scans);
    expect(results.map((kept) => kept.length)).toEqual(Array(6).fill(length));
    expect(most).toBe(SCAN_LIMITS.concurrent);
  });
});
