/** The interface's one time format: `YYYY-MM-DDThh:mm:ssZ`, UTC, no milliseconds. */
export const TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$';
const TIME_REGEX = new RegExp(TIME_PATTERN);

export function formatTime(date: Date | number): string {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function nowTime(): string {
  return formatTime(Date.now());
}

/** Whether the text is exactly `YYYY-MM-DDThh:mm:ssZ` and a real instant. */
export function isInterfaceTime(text: string): boolean {
  return TIME_REGEX.test(text) && !Number.isNaN(Date.parse(text)) && formatTime(Date.parse(text)) === text;
}
