import type { DirectoryDiff } from './change-diff.js';
import { SECTIONS } from './records.js';

/** Ids listed in full per line; more are counted. */
const SHOWN_IDS = 10;

/**
 * A diff for people, one line per section and one per deactivated or reactivated list, e.g.
 * `users: 1 created (newbie), 2 removed (u8, u9)`; what the import command and dry runs print.
 */
export function describeDiff(diff: DirectoryDiff): string[] {
  const lines = SECTIONS.map((section) => {
    const parts = (['created', 'updated', 'removed'] as const)
      .filter((kind) => diff[kind][section].length > 0)
      .map((kind) => `${diff[kind][section].length} ${kind} ${idList(diff[kind][section])}`);
    return `${section}: ${parts.length > 0 ? parts.join(', ') : 'no change'}`;
  });
  if (diff.deactivatedUsers.length > 0) lines.push(`deactivated users: ${diff.deactivatedUsers.length} ${idList(diff.deactivatedUsers)}`);
  if (diff.reactivatedUsers.length > 0) lines.push(`reactivated users: ${diff.reactivatedUsers.length} ${idList(diff.reactivatedUsers)}`);
  return lines;
}

function idList(ids: readonly string[]): string {
  const shown = ids.slice(0, SHOWN_IDS).join(', ');
  return ids.length > SHOWN_IDS ? `(${shown}, … ${ids.length - SHOWN_IDS} more)` : `(${shown})`;
}
