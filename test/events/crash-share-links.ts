/**
 * The share-link part of the crash test (issue 23 item 3, issue 24): a worker that makes links on a file
 * (management API, some with `maxUses`), takes guest tokens through the public route and opens the file as
 * each guest, across the kills; and the checks once the service is up for good. A link or a token counts
 * only when its 2xx was answered; a request that got no answer (the service was killed) or a 503 is tried
 * again, which may make a link nobody was told of (that is allowed) or spend a use nobody got (also allowed:
 * `maxUses` caps the tokens given out, never more).
 */

/** One request to whichever instance is up: status 0 when no answer came. `refusal` is the one 4xx code expected. */
export type Request = (method: string, path: string, headers: Record<string, string>, body: string | undefined, refusal?: string) => Promise<{ status: number; text: string }>;

export interface AckedLink {
  id: string;
  code: string;
  maxUses: number | null;
  /** Guests whose token was answered (200), with the token. */
  guests: Array<{ id: string; token: string }>;
  /** Codes of the refused token requests (403). */
  refusals: string[];
}

/** Uses of a link: at most one `maxUses` given in three is unlimited; each link is asked for one token more than it may give. */
const maxUsesOf = (index: number) => [1, null, 2][index % 3]!;

export function shareLinkLoad(options: {
  request: Request;
  adminKey: string;
  fileId: string;
  /** Which start of the service this is; at most `perStart` links are made per start (refusals stay under the per-address limit). */
  generation: () => number;
  perStart: number;
  stopped: () => boolean;
}) {
  const { request, fileId } = options;
  const admin = { authorization: `Bearer ${options.adminKey}`, 'content-type': 'application/json' };
  const links: AckedLink[] = [];
  /** Answers no request may get: a 5xx other than 503. */
  const faults: string[] = [];
  const made = new Map<number, number>();
  let index = 0;
  let tokens = 0;
  /** A link is being made or its tokens asked for. */
  let busy = false;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Sends until answered with something else than 503 (or nothing); undefined when stopped first. */
  const answered = async (...args: Parameters<Request>) => {
    while (!options.stopped()) {
      const answer = await request(...args);
      if (answer.status >= 500 && answer.status !== 503) faults.push(`${args[0]} ${args[1]} ${answer.status}: ${answer.text.slice(0, 200)}`);
      if (answer.status !== 0 && answer.status < 500) return answer;
    }
    return undefined;
  };
  const work = async () => {
    while (!options.stopped() && (made.get(options.generation()) ?? 0) >= options.perStart) await pause(50);
    if (options.stopped()) return;
    busy = true;
    try {
      await makeAndUse();
    } finally {
      busy = false;
    }
  };
  const makeAndUse = async () => {
    const i = index++;
    const maxUses = maxUsesOf(i);
    const created = await answered('POST', `/api/files/${fileId}/share-links`, admin, JSON.stringify({ role: 'comment', ...(maxUses === null ? {} : { maxUses }) }));
    if (created?.status !== 201) return;
    const body = JSON.parse(created.text) as { id: string; code: string };
    const link: AckedLink = { id: body.id, code: body.code, maxUses, guests: [], refusals: [] };
    links.push(link);
    made.set(options.generation(), (made.get(options.generation()) ?? 0) + 1);
    for (let attempt = 0; attempt < (maxUses ?? 0) + 1; attempt++) {
      const answer = await answered(
        'POST',
        `/share-links/${link.code}/token`,
        { 'content-type': 'application/json' },
        JSON.stringify({ name: `Crash guest ${i}.${attempt}` }),
        'link_used_up',
      );
      if (answer?.status === 403) link.refusals.push(/"code":"([^"]+)"/.exec(answer.text)?.[1] ?? answer.text);
      if (answer?.status !== 200) continue;
      const granted = JSON.parse(answer.text) as { token: string; user: { id: string }; fileId: string };
      link.guests.push({ id: granted.user.id, token: granted.token });
      tokens += 1;
      // The guest opens the file at once, as the editor does.
      await answered('GET', `/files/${fileId}`, { 'x-platform-token': granted.token }, undefined);
    }
  };
  /** This start of the service made all its links and asked for all their tokens. */
  const settled = () => !busy && (made.get(options.generation()) ?? 0) >= options.perStart;
  return { work, links, faults, settled, acknowledged: () => links.length + tokens };
}

/**
 * After the kills: each acknowledged link listed exactly once, never more tokens than its `maxUses`, every
 * acknowledged guest listed under its link and their token still opening the file. Answers the problems.
 */
export async function shareLinkProblems(request: Request, adminKey: string, fileId: string, links: readonly AckedLink[]): Promise<string[]> {
  const problems: string[] = [];
  const listed = await request('GET', `/api/files/${fileId}/share-links`, { authorization: `Bearer ${adminKey}` }, undefined);
  if (listed.status !== 200) return [`list: ${listed.status} ${listed.text.slice(0, 200)}`];
  const items = (JSON.parse(listed.text) as { items: Array<{ id: string; maxUses: number | null; uses: number; state: string; guests: Array<{ id: string }> }> }).items;
  for (const link of links) {
    const found = items.filter((item) => item.id === link.id);
    if (found.length !== 1) {
      problems.push(`${link.id}: listed ${found.length} times`);
      continue;
    }
    const item = found[0]!;
    if (item.maxUses !== link.maxUses) problems.push(`${link.id}: maxUses ${item.maxUses}, made with ${link.maxUses}`);
    if (link.maxUses !== null && link.guests.length > link.maxUses) problems.push(`${link.id}: ${link.guests.length} tokens given, maxUses ${link.maxUses}`);
    if (item.uses < link.guests.length || (link.maxUses !== null && item.uses > link.maxUses))
      problems.push(`${link.id}: uses ${item.uses}, ${link.guests.length} tokens given, maxUses ${link.maxUses}`);
    if (item.state === 'revoked' || item.state === 'expired') problems.push(`${link.id}: ${item.state}`);
    // A link asked one more time than it may give was refused once it was used up, never granted then.
    if (link.refusals.length > 0 && (link.maxUses === null || item.uses < link.maxUses))
      problems.push(`${link.id}: refused (${link.refusals.join(', ')}) with uses left (${item.uses} of ${link.maxUses})`);
    for (const guest of link.guests) {
      const times = item.guests.filter((listedGuest) => listedGuest.id === guest.id).length;
      if (times !== 1) problems.push(`${link.id}: guest ${guest.id} listed ${times} times`);
      const opened = await request('GET', `/files/${fileId}`, { 'x-platform-token': guest.token }, undefined);
      const id = opened.status === 200 ? (JSON.parse(opened.text) as { id?: string }).id : undefined;
      if (id !== fileId) problems.push(`${link.id}: guest ${guest.id} opens ${fileId}: ${opened.status} ${opened.text.slice(0, 200)}`);
    }
  }
  return problems;
}
