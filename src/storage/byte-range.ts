import type { ByteRange } from './object-backend.js';

/** What a `Range` header asks of a representation of `size` bytes (RFC 9110 section 14). */
export type RangeAnswer = { kind: 'whole' } | { kind: 'part'; range: ByteRange } | { kind: 'unsatisfiable' };

const WHOLE: RangeAnswer = { kind: 'whole' };

/**
 * One `bytes=` range (`first-last`, `first-`, `-suffix`) within `size`, the end clamped to the last byte.
 * A header that is absent, malformed, not in bytes, or asks for several ranges gets the whole
 * representation (a server may ignore Range); a range that starts past the end is unsatisfiable. With
 * `ifRange`, the range applies only when it equals the current `etag` (else the bytes changed: whole).
 */
export function answerRange(header: string | undefined, size: number, validators: { ifRange?: string; etag: string }): RangeAnswer {
  if (header === undefined) return WHOLE;
  if (validators.ifRange !== undefined && validators.ifRange !== validators.etag) return WHOLE;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return WHOLE;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return WHOLE;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return WHOLE;
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', range: { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) } };
}
