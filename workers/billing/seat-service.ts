import { findPlan, PLANS } from "../../schema/plans";
import type { EmailSender } from "../clients/email";
import { logEvent } from "../observability/log";
import { getAccount } from "../stores/accounts";
import type { Database } from "../stores/db";
import { type HoldKind, INVITATION_TTL_SECONDS, inviteNext, releaseSeat } from "../stores/seats";

/** What inviting needs: the database, and the e-mail API that tells an invited account (absent: not told). */
export interface InviteDeps {
  db: Database;
  email?: EmailSender;
}

/**
 * Tells an invited account by e-mail that a seat is held for it. A failed send is logged, never thrown: the
 * hold stands and the console's plan list shows it.
 */
async function tellInvited(deps: InviteDeps, accountId: string, planId: string): Promise<void> {
  if (!deps.email?.configured) return;
  const to = (await getAccount(deps.db, accountId))?.email;
  if (!to) return;
  const plan = findPlan(planId);
  await deps.email
    .send({
      to,
      subject: `A seat on svc ${plan?.name ?? planId} is yours for 72 hours`,
      text: `A seat on the ${plan?.name ?? planId} plan you waited for is held for you for ${INVITATION_TTL_SECONDS / 3600} hours. Subscribe from the console's billing page to take it.`,
    })
    .catch((err) =>
      logEvent("error", "invitation_email_not_sent", {
        account_id: accountId,
        error: err instanceof Error ? err.name : String(err),
      }),
    );
}

/** Invites the next account waiting for a plan while one of its seats is free, and tells it; answers who. */
export async function inviteWaiting(deps: InviteDeps, planId: string): Promise<string[]> {
  const total = findPlan(planId)?.seats_total ?? null;
  const invited: string[] = [];
  for (;;) {
    const next = await deps.db.transaction((tx) => inviteNext(tx, planId, total));
    if (!next) return invited;
    invited.push(next);
    await tellInvited(deps, next, planId);
  }
}

/** Releases an account's hold on a plan (of one of `kinds`, for `ref` if given), then invites the next waiting. */
export async function releaseAndInvite(
  deps: InviteDeps,
  hold: { accountId: string; planId: string; kinds: readonly HoldKind[]; ref?: string },
): Promise<boolean> {
  const released = await deps.db.transaction((tx) => releaseSeat(tx, hold));
  if (released) await inviteWaiting(deps, hold.planId);
  return released;
}

/**
 * The scheduled sweep: invitations and plan checkouts lapse by time alone, so every plan with a free seat
 * invites its next waiting accounts. Answers how many were invited.
 */
export async function sweepInvitations(deps: InviteDeps): Promise<number> {
  let invited = 0;
  for (const plan of PLANS) invited += (await inviteWaiting(deps, plan.id)).length;
  return invited;
}
