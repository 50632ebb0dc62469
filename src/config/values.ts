import { ConfigError } from './config-error.js';

/** Reads one variable: undefined when unset or blank, otherwise the trimmed text. */
export type EnvGetter = (name: string) => string | undefined;

export function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (/^(true|1|yes|on)$/i.test(value)) return true;
  if (/^(false|0|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false`);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration in milliseconds from `500ms`, `30s`, `2m`, `1h` or a plain number of seconds (as TOKEN_TTL);
 * `min` is the smallest value allowed (0 lets `0` mean "off").
 */
export function parseDurationMs(name: string, value: string | undefined, fallbackMs: number, min = 1): number {
  if (value === undefined) return fallbackMs;
  const match = /^(\d+)\s*(ms|s|m|h)?$/.exec(value);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] ?? 's']! : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < min) {
    throw new ConfigError(`${name} must be a duration such as 500ms, 30s or 2m${min === 0 ? ' (0: off)' : ''}`);
  }
  return ms;
}

/** A whole number from `min` to `max`. */
export function parseInteger(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}`);
  return Number(value);
}

/** A secret given in the environment: at least 16 characters. */
export function parseSecret(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.length < 16) throw new ConfigError(`${name} must be at least 16 characters`);
  return value;
}
