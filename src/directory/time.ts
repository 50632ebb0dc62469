/** The interface's one time format: `YYYY-MM-DDThh:mm:ssZ`, UTC, no milliseconds. */
export const TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$';
const TIME_REGEX = new RegExp(TIME_PATTERN);

export function formatTime(date: Date | number): string {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function nowTime(): string {
  return formatTime(Date.now());
}

/** Days of each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether the text is exactly `YYYY-MM-DDThh:mm:ssZ` and a real instant: a month of the year, a day of
 * that month (the Gregorian calendar's leap years), an hour of 0-23, minutes and seconds of 0-59. What
 * `formatTime(Date.parse(text)) === text` says, read off the digits (an import checks two per file).
 */
export function isInterfaceTime(text: string): boolean {
  if (!TIME_REGEX.test(text)) return false;
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > MONTH_DAYS[month - 1]! + (month === 2 && leap ? 1 : 0)) return false;
  return Number(text.slice(11, 13)) <= 23 && Number(text.slice(14, 16)) <= 59 && Number(text.slice(17, 19)) <= 59;
}
