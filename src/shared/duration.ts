const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses `3600`, `90s`, `30m`, `24h` or `7d` into seconds; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)\s*([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const [, amount, unit] = match as unknown as [string, string, string];
  return Number(amount) * (UNIT_SECONDS[unit] ?? 1);
}
