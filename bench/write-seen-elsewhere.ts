/**
 * Issue 21's bound for several instances: a directory write made through one instance, seen by a
 * callback read on another (PostgreSQL: the feed's NOTIFY; MySQL: the read model's 250 ms poll;
 * docs/scaling.md). As an identity provider pushes a group: each write creates a department through one
 * instance's SCIM (`POST /scim/v2/Groups`; the two instances take turns), then the other instance's
 * `GET /departments/{id}` (a user's token) is read again and again until it answers with the department;
 * then the group is deleted through that other instance and the first is read until it answers 404. The
 * lag is from the answer to the write to the answer of the first read that shows it, so it includes one
 * round trip of the read (about a millisecond on one machine). The directory ends as it began.
 */

import { percentile } from './load.js';

/** The lags of `writes` writes, each seen on the other instance or given up on after `patienceMs`. */
export interface WriteSeenElsewhere {
  writes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Writes the other instance had not shown after `patienceMs` (left out of the percentiles). */
  notSeen: number;
  patienceMs: number;
}

export interface WriteSeenOptions {
  /** The two instances' base URLs. */
  bases: readonly [string, string];
  /** A user token of the SCIM team, for the callback read. */
  viewerToken: () => string;
  scimToken: string;
  /** Groups to create and delete: twice as many writes. */
  groups: number;
  patienceMs?: number;
}

const PATIENCE_MS = 10_000;

export async function measureWriteSeenElsewhere(options: WriteSeenOptions): Promise<WriteSeenElsewhere> {
  const patienceMs = options.patienceMs ?? PATIENCE_MS;
  const run = Date.now().toString(36);
  const lags: number[] = [];
  let notSeen = 0;
  const seen = (lag: number | undefined) => (lag === undefined ? (notSeen += 1) : lags.push(lag));
  for (let turn = 0; turn < options.groups; turn += 1) {
    const writer = options.bases[turn % 2] as string;
    const other = options.bases[(turn + 1) % 2] as string;
    const displayName = `bench seen elsewhere ${run} ${turn}`;
    const created = (await scim(writer, 'POST', '/scim/v2/Groups', options.scimToken, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName,
    })) as { id: string };
    let written = performance.now();
    seen(await waitUntil(other, created.id, options.viewerToken(), (status, name) => status === 200 && name === displayName, patienceMs, written));
    // Deleted through the other instance: both directions are measured.
    await scim(other, 'DELETE', `/scim/v2/Groups/${encodeURIComponent(created.id)}`, options.scimToken);
    written = performance.now();
    seen(await waitUntil(writer, created.id, options.viewerToken(), (status) => status === 404, patienceMs, written));
  }
  lags.sort((a, b) => a - b);
  return {
    writes: options.groups * 2,
    p50Ms: round(percentile(lags, 0.5)),
    p99Ms: round(percentile(lags, 0.99)),
    maxMs: round(lags.at(-1) ?? Number.NaN),
    notSeen,
    patienceMs,
  };
}

/** Milliseconds from `since` to the first answer of `base`'s department read that `shows` the write; undefined after `patienceMs`. */
async function waitUntil(
  base: string,
  id: string,
  token: string,
  shows: (status: number, name: unknown) => boolean,
  patienceMs: number,
  since: number,
): Promise<number | undefined> {
  while (performance.now() - since < patienceMs) {
    const response = await fetch(`${base}/departments/${encodeURIComponent(id)}`, { headers: { 'x-platform-token': token }, signal: AbortSignal.timeout(patienceMs) });
    const body = (await response.json()) as { name?: unknown };
    if (response.status !== 200 && response.status !== 404) throw new Error(`GET /departments/${id} on ${base} answered ${response.status}: ${JSON.stringify(body)}`);
    if (shows(response.status, body.name)) return performance.now() - since;
  }
  return undefined;
}

async function scim(base: string, method: 'POST' | 'DELETE', path: string, token: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} on ${base} answered ${response.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

const round = (ms: number) => Math.round(ms * 10) / 10;
