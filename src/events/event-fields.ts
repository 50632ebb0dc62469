/**
 * Reading the fields of an event body the way the platform may send them: ids as strings or as whole
 * numbers (the demo platform's ids are numbers), numbers as numbers or numeric text. What cannot be read
 * is noted as a problem with its path, never thrown. Every string read is made storable: a NUL (which
 * PostgreSQL text cannot hold) or a lone surrogate (which SQLite would keep as invalid UTF-8) becomes U+FFFD,
 * so it can name nothing and costs no 5xx.
 */
import { storableText } from '../directory/text-rules.js';

/** Longest id read from a body (longer ones name nothing we keep, and would not fit an index entry). */
export const MAX_ID_LENGTH = 255;
/** Epoch milliseconds up to the year 9999. */
export const MAX_EPOCH_MS = 253_402_300_799_999;

export type Fields = Record<string, unknown>;

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text made storable alike on every store (src/directory/text-rules.ts): NUL and lone surrogates become U+FFFD. */
export function cleanText(text: string): string {
  return storableText(text);
}

/** The problems met while reading one body; `note` records what was left out without making it unreadable. */
export class FieldReader {
  readonly problems: string[] = [];

  problem(path: string, what: string): undefined {
    this.problems.push(`${path} ${what}`);
    return undefined;
  }

  /** The object at `path`, or undefined (a problem only when present and not an object, or `required`). */
  object(value: unknown, path: string, required = false): Fields | undefined {
    if (isFields(value)) return value;
    if (value === undefined || value === null) return required ? this.problem(path, 'is missing') : undefined;
    return this.problem(path, 'is not an object');
  }

  /** An id: a non-empty string or a whole number, at most MAX_ID_LENGTH characters. */
  id(value: unknown, path: string, required = false): string | undefined {
    const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
    if (typeof text === 'string' && text !== '') {
      if (text.length > MAX_ID_LENGTH) return this.problem(path, `is longer than ${MAX_ID_LENGTH} characters`);
      return cleanText(text);
    }
    if (value === undefined || value === null || value === '') return required ? this.problem(path, 'is missing') : undefined;
    return this.problem(path, 'is not an id');
  }

  /** Text; numbers are written out, anything else is a problem. */
  text(value: unknown, path: string): string | undefined {
    if (typeof value === 'string') return cleanText(value);
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (value === undefined || value === null) return undefined;
    return this.problem(path, 'is not text');
  }

  /** A list of ids; entries that are not ids are left out and noted. */
  ids(value: unknown, path: string): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) return this.problem(path, 'is not a list');
    const ids: string[] = [];
    let bad = 0;
    for (const entry of value) {
      const text = typeof entry === 'number' && Number.isSafeInteger(entry) ? String(entry) : entry;
      if (typeof text === 'string' && text !== '' && text.length <= MAX_ID_LENGTH) ids.push(cleanText(text));
      else bad += 1;
    }
    if (bad > 0) this.problem(path, `has ${bad} entr${bad === 1 ? 'y' : 'ies'} that ${bad === 1 ? 'is' : 'are'} not an id`);
    return ids;
  }

  /** A whole number within [min, max], from a number or numeric text. */
  integer(value: unknown, path: string, range: { min: number; max: number }, required = false): number | undefined {
    const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof number === 'number' && Number.isInteger(number)) {
      if (number < range.min || number > range.max) return this.problem(path, `${shown(value)} is out of range (${range.min} to ${range.max})`);
      return number;
    }
    if (value === undefined || value === null) return required ? this.problem(path, 'is missing') : undefined;
    return this.problem(path, `${shown(value)} is not a whole number`);
  }

  /** Epoch milliseconds: a whole number from 0 to the year 9999 (or numeric text). */
  millis(value: unknown, path: string): number | undefined {
    return this.integer(value, path, { min: 0, max: MAX_EPOCH_MS });
  }
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A logged body, parsed again (the intake logged only JSON; a body that is not an object reads as empty). */
export function parseLoggedBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
