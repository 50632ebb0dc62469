import type { PlatformClient } from './platform-client.js';
import type { Seat } from './platform-shapes.js';

/** Seats that must change so that exactly the directory's active users hold one. */
export interface SeatPlan {
  /** Active users whose seat is disabled (0) or never enabled (-1), or who have no seat row. */
  activate: string[];
  /** Activated seats (1) of users who are deactivated here or not in the directory at all. */
  deactivate: string[];
  /** How many seats the platform listed. */
  seatsListed: number;
}

/** The plan, from the platform's seats and the directory's users. */
export function planSeats(seats: readonly Seat[], users: ReadonlyArray<{ id: string; active: boolean }>): SeatPlan {
  const status = new Map(seats.map((seat) => [seat.userId, seat.status]));
  const active = new Set(users.filter((user) => user.active).map((user) => user.id));
  const activate = [...active].filter((id) => status.get(id) !== 1).sort();
  const deactivate = seats
    .filter((seat) => seat.status === 1 && !active.has(seat.userId))
    .map((seat) => seat.userId)
    .sort();
  return { activate, deactivate, seatsListed: seats.length };
}

/** Every seat, page by page (pages from 1) until a short page. */
export async function listAllSeats(platform: Pick<PlatformClient, 'listSeats'>, pageSize = 100, maxPages = 10_000): Promise<Seat[]> {
  const seats: Seat[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const batch = await platform.listSeats({ page, size: pageSize });
    seats.push(...batch);
    if (batch.length < pageSize) break;
  }
  return seats;
}

/** Calls per batch of user ids (the platform's limit is not documented; 100 is modest). */
export const SEAT_CALL_BATCH = 100;

/**
 * One-shot reconcile: lists every seat, compares with the directory's users, and (unless `dryRun`)
 * deactivates and activates in batches. Returns the plan it carried out.
 */
export async function reconcileSeats(
  platform: Pick<PlatformClient, 'listSeats' | 'activateSeats' | 'deactivateSeats'>,
  users: ReadonlyArray<{ id: string; active: boolean }>,
  options: { dryRun?: boolean } = {},
): Promise<SeatPlan> {
  const plan = planSeats(await listAllSeats(platform), users);
  if (options.dryRun) return plan;
  for (let i = 0; i < plan.deactivate.length; i += SEAT_CALL_BATCH) await platform.deactivateSeats(plan.deactivate.slice(i, i + SEAT_CALL_BATCH));
  for (let i = 0; i < plan.activate.length; i += SEAT_CALL_BATCH) await platform.activateSeats(plan.activate.slice(i, i + SEAT_CALL_BATCH));
  return plan;
}
