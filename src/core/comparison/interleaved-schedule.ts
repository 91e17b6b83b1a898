/**
 * The order in which a side-by-side comparison runs its routes: `rounds` rounds, each one a shuffled permutation of
 * all routes (A B C, then B A C, then C A B ...), from a declared seed. Interleaving spreads slow drift (thermal
 * throttling, a background task, a GC storm) over every route alike instead of penalising whichever ran last.
 */

import { mulberry32 } from '../stats/mulberry32.ts';

/** One slot of the schedule: which route runs, in which round. */
export interface ScheduleSlot {
  round: number;
  route_id: string;
}

/**
 * Builds the interleaved schedule.
 * @param routeIds the routes to compare (at least two, unique)
 * @param rounds how many timed runs each route gets (one per round)
 * @param seed the declared seed (recorded in the comparison receipt so anyone can rebuild the order)
 */
export function interleavedSchedule(routeIds: readonly string[], rounds: number, seed: number): ScheduleSlot[] {
  if (routeIds.length < 2) throw new RangeError('a comparison needs at least two routes');
  if (new Set(routeIds).size !== routeIds.length) throw new RangeError('route ids must be unique');
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be a positive integer, got ${rounds}`);
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const random = mulberry32(seed);
  const slots: ScheduleSlot[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = [...routeIds];
    // Fisher-Yates: every permutation equally likely for a uniform generator.
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const route_id of order) slots.push({ round, route_id });
  }
  return slots;
}
