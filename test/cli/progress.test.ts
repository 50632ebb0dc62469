import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/cli/progress.js';

/** A stream that keeps what was written, as a terminal or as a pipe. */
function output(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (text: string) => writes.push(text) };
}

const ERASE = '\r\u001b[2K';

describe('progress of a long command', () => {
  it('on a terminal redraws one line with the phase, what is done of the total, the rate and the time left', () => {
    const clock = { now: 0 };
    const out = output(true);
    const progress = new Progress(out, { unit: 'rows', label: 'import', now: () => clock.now });
    progress.step('writing rows', 10_000);
    expect(out.writes).toEqual([`${ERASE}import: writing rows, 0 rows / 10,000 rows (0%)`]);
    clock.now = 1_000;
    progress.advance(2_000);
    expect(out.writes.at(-1)).toBe(`${ERASE}import: writing rows, 2,000 rows / 10,000 rows (20%), 2,000 rows/s, 4 s left`);
    // Within the redraw interval nothing is drawn; the next draw shows everything done by then.
    clock.now = 1_100;
    progress.advance(500);
    expect(out.writes).toHaveLength(2);
    clock.now = 2_000;
    progress.advance(1_500);
    expect(out.writes.at(-1)).toBe(`${ERASE}import: writing rows, 4,000 rows / 10,000 rows (40%), 2,000 rows/s, 3 s left`);
    progress.step('building indexes');
    expect(out.writes.at(-1)).toBe(`${ERASE}import: building indexes, 4,000 rows / 10,000 rows (40%), 2,000 rows/s, 3 s left`);
    clock.now = 4_000;
    progress.advance(6_000);
    progress.finish('written');
    expect(out.writes.at(-1)).toBe(`${ERASE}import: written, 10,000 rows in 4.0 s (2,500 rows/s)\n`);
  });

  it('counts bytes in kB, MB and GB', () => {
    const clock = { now: 0 };
    const out = output(true);
    const progress = new Progress(out, { unit: 'bytes', label: 'storage migrate', now: () => clock.now });
    progress.step('copying 3 stored files', 2_500_000_000);
    clock.now = 10_000;
    progress.advance(1_250_000_000);
    expect(out.writes.at(-1)).toBe(`${ERASE}storage migrate: copying 3 stored files, 1.3 GB / 2.5 GB (50%), 125.0 MB/s, 10 s left`);
  });

  it('elsewhere (a log, a pipe) writes nothing while it runs and one summary line at the end', () => {
    const clock = { now: 0 };
    const out = output(false);
    const progress = new Progress(out, { unit: 'bytes', label: 'storage migrate', now: () => clock.now });
    progress.step('copying 2 stored files', 3_000);
    progress.advance(1_000);
    clock.now = 500;
    progress.advance(2_000);
    expect(out.writes).toEqual([]);
    progress.finish('copied');
    expect(out.writes).toEqual(['storage migrate: copied, 3.0 kB in 0.5 s (6.0 kB/s)\n']);
  });

  it('--quiet writes nothing, on a terminal or not; a command that stops erases its line', () => {
    for (const isTTY of [true, false]) {
      const out = output(isTTY);
      const progress = new Progress(out, { unit: 'rows', label: 'import', quiet: true });
      progress.step('writing rows', 10);
      progress.advance(10);
      progress.finish();
      expect(out.writes).toEqual([]);
    }
    const out = output(true);
    const progress = new Progress(out, { unit: 'rows', label: 'import' });
    progress.step('checking the records');
    progress.abandon();
    expect(out.writes).toEqual([`${ERASE}import: checking the records`, ERASE]);
  });
});
