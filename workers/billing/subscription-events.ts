import type Stripe from "stripe";
import type { Currency } from "../../schema/currencies";
import { findPlan } from "../../schema/plans";
import type { EmailSender } from "../clients/email";
import type { Ledger } from "../ledger/stub";
import type { Database } from "../stores/db";
import { holdForSubscription } from "../stores/seats";
import { completeDowngradeTo, liveDowngrade } from "../stores/subscription-downgrades";
import { recordSubscription } from "../stores/subscriptions";
import { fixBillingCurrency } from "../stores/top-ups";
import { inviteWaiting, releaseAndInvite } from "./seat-service";
import { endDowngrade } from "./subscription-downgrade";

/** What subscription events need. */
export interface SubscriptionDeps {
  db: Database;
  /** Tells accounts invited from the waiting list. */
  email?: EmailSender;
  ledger: (accountId: string) => Pick<Ledger, "setPlanAllowance" | "refillWeekAllowance">;
}

/** Stripe statuses that hold a seat (spec), and those that grant the weekly allowance (docs/decisions.md). */
const HOLDS_SEAT = new Set(["active", "past_due", "incomplete", "trialing"]);
const GRANTS_ALLOWANCE = new Set(["active", "past_due", "trialing"]);

/**
 * `customer.subscription.created|updated|deleted`: records the status; a seat-holding status holds the
 * account's seat on the subscription's plan (an upgrade or downgrade moves it, the freed plan invites its
 * next waiting account) and sets the ledger's weekly allowance (0 while `incomplete`); an ended status
 * (`canceled`, `unpaid`, `incomplete_expired`, `paused`) frees the seat and a scheduled downgrade's seat,
 * removes the allowance and invites the next waiting account. Safe to run again.
 */
export async function subscriptionEvent(
  deps: SubscriptionDeps,
  type: string,
  sub: Stripe.Subscription,
): Promise<string> {
  const accountId = sub.metadata?.account_id;
  const plan = findPlan(sub.metadata?.plan_id ?? "");
  if (!accountId || !plan) return "ignored";
  const status = type === "customer.subscription.deleted" ? "canceled" : sub.status;
  const recorded = await recordSubscription(deps.db, {
    id: sub.id,
    account_id: accountId,
    plan_id: plan.id,
    status,
    current_period_end: sub.items?.data?.[0]?.current_period_end ?? null,
  });
  if (!recorded) return "ignored";
  if (HOLDS_SEAT.has(status)) {
    const freed = await deps.db.transaction((tx) =>
      holdForSubscription(tx, { accountId, planId: plan.id, subscriptionId: sub.id }),
    );
    // A scheduled downgrade that took effect: its seat became the subscription's (holdForSubscription).
    await completeDowngradeTo(deps.db, sub.id, plan.id);
    for (const p of freed) await inviteWaiting(deps, p);
    await deps
      .ledger(accountId)
      .setPlanAllowance(GRANTS_ALLOWANCE.has(status) ? plan.week_allowance_tokens : 0);
    if (GRANTS_ALLOWANCE.has(status) && sub.currency)
      await fixBillingCurrency(deps.db, accountId, sub.currency.toUpperCase() as Currency);
    return status;
  }
  const downgrade = await liveDowngrade(deps.db, accountId);
  if (downgrade?.subscription_id === sub.id) await endDowngrade(deps, downgrade.id);
  const released = await releaseAndInvite(deps, {
    accountId,
    planId: plan.id,
    kinds: ["subscription"],
    ref: sub.id,
  });
  if (released) await deps.ledger(accountId).setPlanAllowance(0);
  return released ? "released" : "ignored";
}

/**
 * Checkout events of plan and reset sessions: an expired plan checkout frees its seat (and invites the next
 * waiting account); a paid reset refills the current week's allowance, once per Checkout Session.
 */
export async function planCheckoutEvent(
  deps: SubscriptionDeps,
  type: string,
  session: Stripe.Checkout.Session,
): Promise<string> {
  const accountId = session.metadata?.account_id;
  const planId = session.metadata?.plan_id;
  if (!accountId || !planId) return "ignored";
  if (session.metadata?.kind === "plan") {
    if (type !== "checkout.session.expired") return "ignored";
    const released = await releaseAndInvite(deps, {
      accountId,
      planId,
      kinds: ["checkout"],
      ref: session.id,
    });
    return released ? "released" : "ignored";
  }
  const settled =
    (type === "checkout.session.completed" && session.payment_status === "paid") ||
    type === "checkout.session.async_payment_succeeded";
  if (!settled) return "ignored";
  return (await deps.ledger(accountId).refillWeekAllowance(session.id)) ? "refilled" : "already_refilled";
}
