import { findPlan, PLANS } from "../../schema/plans";
import type { Database } from "../stores/db";
import { type HoldKind, inviteNext, releaseSeat } from "../stores/seats";

/** Invites the next account waiting for a plan while one of its seats is free; answers who was invited. */
export async function inviteWaiting(db: Database, planId: string): Promise<string[]> {
  const total = findPlan(planId)?.seats_total ?? null;
  const invited: string[] = [];
  for (;;) {
    const next = await db.transaction((tx) => inviteNext(tx, planId, total));
    if (!next) return invited;
    invited.push(next);
  }
}

/** Releases an account's hold on a plan (of one of `kinds`, for `ref` if given), then invites the next waiting. */
export async function releaseAndInvite(
  db: Database,
  hold: { accountId: string; planId: string; kinds: readonly HoldKind[]; ref?: string },
): Promise<boolean> {
  const released = await db.transaction((tx) => releaseSeat(tx, hold));
  if (released) await inviteWaiting(db, hold.planId);
  return released;
}

/**
 * The scheduled sweep: invitations and plan checkouts lapse by time alone, so every plan with a free seat
 * invites its next waiting accounts. Answers how many were invited.
 */
export async function sweepInvitations(db: Database): Promise<number> {
  let invited = 0;
  for (const plan of PLANS) invited += (await inviteWaiting(db, plan.id)).length;
  return invited;
}
