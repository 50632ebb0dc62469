import { ScimProblem } from './scim-protocol-error.js';
import { yieldToEventLoop } from '../../shared/event-loop.js';

/** Bounds of a scan that no index serves (a SCIM filter on an attribute without an index). */
export const SCAN_LIMITS = {
  /** Resources looked at between two turns of the event loop. */
  slice: 50,
  /** Scans running at once in the process; more wait their turn. */
  concurrent: 2,
  /** Scans waiting at once; beyond that a filter is refused (400 tooMany), not queued. */
  waiting: 32,
  /** The most resources one scan looks at (400 tooMany beyond). */
  resources: 100_000,
} as const;

let running = 0;
const queue: Array<() => void> = [];

async function turn(): Promise<void> {
  if (running < SCAN_LIMITS.concurrent) {
    running += 1;
    return;
  }
  if (queue.length >= SCAN_LIMITS.waiting)
    throw new ScimProblem(400, 'tooMany', 'too many filtered listings are running: retry in a moment, or filter by userName, displayName or externalId');
  // The finishing scan hands its place over (running stays the same).
  await new Promise<void>((resolve) => queue.push(resolve));
}

function done(): void {
  const next = queue.shift();
  if (next) next();
  else running -= 1;
}

/**
 * The items `keep` selects, looked at in slices with a turn of the event loop between them, at most
 * SCAN_LIMITS.concurrent scans at a time: one caller's expensive filter never holds `/healthz` or others.
 */
export async function boundedScan<T>(items: T[], keep: (item: T) => boolean): Promise<T[]> {
  if (items.length > SCAN_LIMITS.resources)
    throw new ScimProblem(400, 'tooMany', `this filter would look at more than ${SCAN_LIMITS.resources} resources: filter by userName, displayName or externalId`);
  await turn();
  try {
    const kept: T[] = [];
    for (let start = 0; start < items.length; start += SCAN_LIMITS.slice) {
      if (start > 0) await yieldToEventLoop();
      for (const item of items.slice(start, start + SCAN_LIMITS.slice)) if (keep(item)) kept.push(item);
    }
    return kept;
  } finally {
    done();
  }
}

/** `items` mapped through `map`, in slices with a turn of the event loop between them (answers of up to a page). */
export async function mapInSlices<T, U>(items: T[], map: (item: T) => U): Promise<U[]> {
  const mapped: U[] = [];
  for (let start = 0; start < items.length; start += SCAN_LIMITS.slice) {
    if (start > 0) await yieldToEventLoop();
    mapped.push(...items.slice(start, start + SCAN_LIMITS.slice).map(map));
  }
  return mapped;
}
