import type { PlanList } from "../../schema/plan-list";
import { planList } from "../../schema/plans";
import type { Database } from "../stores/db";
import { seatsTaken } from "../stores/seats";

/** How old the seat counts of a plan list may be: the spec allows 10 seconds; the isolate keeps them 5. */
export const SEAT_COUNTS_MAX_AGE_MS = 5_000;

let cached: { at: number; taken: Record<string, number> } | undefined;

/** The plan list with seat counts at most SEAT_COUNTS_MAX_AGE_MS old (one count per isolate per period). */
export async function currentPlanList(db: Database, now: number = Date.now()): Promise<PlanList> {
  if (!cached || now - cached.at > SEAT_COUNTS_MAX_AGE_MS) cached = { at: now, taken: await seatsTaken(db) };
  return planList(cached.taken);
}

/** Forgets the cached counts (tests). */
export function forgetSeatCounts(): void {
  cached = undefined;
}
