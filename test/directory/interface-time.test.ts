import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTime, isInterfaceTime, TIME_PATTERN } from '../../src/directory/time.js';

/** The rule as written before: the pattern, then the text is what the instant it parses to is written as. */
function byRoundTrip(text: string): boolean {
  return new RegExp(TIME_PATTERN).test(text) && !Number.isNaN(Date.parse(text)) && formatTime(Date.parse(text)) === text;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Texts of the pattern's shape with any two digits in each field (impossible dates and times included). */
const shaped = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 0, max: 99 }),
  )
  .map(([y, mo, d, h, mi, s]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}Z`);
/** Real instants written in the format, from year 0 to 9999. */
const real = fc.integer({ min: Date.parse('0000-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59Z') }).map((ms) => formatTime(ms));

describe('an interface time', () => {
  it('is what the round trip through Date says, for any text of its shape', () => {
    fc.assert(
      fc.property(fc.oneof(shaped, real), (text) => {
        expect(isInterfaceTime(text), text).toBe(byRoundTrip(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('takes leap days by the Gregorian rule and refuses the times Date would move', () => {
    const cases: Array<[string, boolean]> = [
      ['2024-02-29T12:00:00Z', true],
      ['2023-02-29T12:00:00Z', false],
      ['2000-02-29T00:00:00Z', true],
      ['1900-02-29T00:00:00Z', false],
      ['2026-04-31T00:00:00Z', false],
      ['2026-12-31T23:59:59Z', true],
      ['2026-11-27T24:00:00Z', false],
      ['2026-11-27T23:60:00Z', false],
      ['2026-11-27T23:59:60Z', false],
      ['2026-00-10T00:00:00Z', false],
      ['2026-11-00T00:00:00Z', false],
      ['0000-01-01T00:00:00Z', true],
      ['2026-11-27T10:00:00.000Z', false],
      ['2026-11-27T10:00:00+08:00', false],
      ['2026-11-27 10:00:00Z', false],
    ];
    for (const [text, expected] of cases) {
      expect(isInterfaceTime(text), text).toBe(expected);
      expect(byRoundTrip(text), text).toBe(expected);
    }
  });
});
