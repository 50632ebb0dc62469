/** ISO 8601 as the platform writes it: date, time to the minute or more, fractions, a zone or none. */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** The latest instant the interface's time format can say: 9999-12-31T23:59:59Z. */
const LAST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59);
/** The earliest: 0000-01-01T00:00:00Z. */
const FIRST_INSTANT_MS = new Date(0).setUTCFullYear(0, 0, 1);

export type InstantReading = { ok: true; ms: number } | { ok: false; problem: string };

/**
 * Reads a reminder time: ISO 8601 (an offset is turned into UTC, fractions are dropped to the second;
 * without a zone the time is taken as UTC, as the interface writes every time), or epoch milliseconds.
 * Refused: dates that do not exist (`2030-02-30`), fields out of range (`25:00`), and instants the
 * interface's `YYYY-MM-DDThh:mm:ssZ` cannot say (before year 0000 or after 9999 once in UTC).
 */
export function readInstant(value: unknown): InstantReading {
  if (typeof value === 'number') return inRange(value, String(value));
  if (typeof value !== 'string') return { ok: false, problem: 'is not a time' };
  const match = ISO_INSTANT.exec(value.trim());
  if (!match) return { ok: false, problem: `"${shorten(value)}" is not an ISO 8601 time` };
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) {
    return { ok: false, problem: `"${shorten(value)}" is not a real time` };
  }
  const offsetMinutes = readOffset(match[8]);
  if (offsetMinutes === undefined) return { ok: false, problem: `"${shorten(value)}" has an offset out of range` };
  // setUTCFullYear, not Date.UTC: Date.UTC takes years 0-99 as 1900-1999.
  const local = new Date(0).setUTCFullYear(year, month - 1, day) + ((hour * 60 + minute) * 60 + second) * 1000;
  return inRange(local - offsetMinutes * 60_000, value);
}

function inRange(ms: number, shown: string): InstantReading {
  if (!Number.isFinite(ms)) return { ok: false, problem: 'is not a time' };
  const seconds = Math.floor(ms / 1000) * 1000;
  if (seconds < FIRST_INSTANT_MS || seconds > LAST_INSTANT_MS) {
    return { ok: false, problem: `"${shorten(shown)}" is outside the years 0000 to 9999 in UTC` };
  }
  return { ok: true, ms: seconds };
}

function readOffset(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || 0);
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
