import type Stripe from "stripe";
import type { Currency } from "../../schema/currencies";
import { findPlan } from "../../schema/plans";
import type { EmailSender } from "../clients/email";
import type { Ledger } from "../ledger/stub";
import type { Database } from "../stores/db";
import { holdForSubscription } from "../stores/seats";
import { completeDowngradeTo, liveDowngrade } from "../stores/subscription-downgrades";
import { otherLiveSubscriptions, recordSubscription } from "../stores/subscriptions";
import { fixBillingCurrency } from "../stores/top-ups";
import { inviteWaiting, releaseAndInvite } from "./seat-service";
import { endDowngrade } from "./subscription-downgrade";

/** What subscription events need. */
export interface SubscriptionDeps {
  db: Database;
  /** Tells accounts invited from the waiting list. */
  email?: EmailSender;
  ledger: (accountId: string) => Pick<Ledger, "setPlanAllowance" | "refillWeekAllowance">;
  /** Cancels a superseded subscription (absent: left to run; the seat still follows the newest). */
  stripe?: Stripe | null;
}

/**
 * Cancels a subscription another, newer one of the account replaced (an upgrade or a change bought through
 * a new checkout), prorated. One already gone is fine; any other failure throws, so Stripe retries.
 */
async function cancelSuperseded(deps: SubscriptionDeps, id: string): Promise<void> {
  if (!deps.stripe) return;
  try {
    await deps.stripe.subscriptions.cancel(id, { prorate: true });
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== 400 && status !== 404) throw error;
  }
}

/** Stripe statuses that hold a seat (spec), and those that grant the weekly allowance (docs/decisions.md). */
const HOLDS_SEAT = new Set(["active", "past_due", "incomplete", "trialing"]);
const GRANTS_ALLOWANCE = new Set(["active", "past_due", "trialing"]);

/**
 * `customer.subscription.created|updated|deleted`: records the status; a seat-holding status holds the
 * account's seat on the subscription's plan (an upgrade or downgrade moves it, the freed plan invites its
 * next waiting account; the account's newest subscription wins and its older ones are cancelled in Stripe) and sets the ledger's weekly allowance (0 while `incomplete`); an ended status
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
    started_at: sub.created ?? null,
  });
  if (!recorded) return "ignored";
  if (HOLDS_SEAT.has(status)) {
    const others = await otherLiveSubscriptions(deps.db, accountId, sub.id, sub.created);
    if (others.some((o) => o.newer)) {
      await cancelSuperseded(deps, sub.id);
      return "superseded";
    }
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
    for (const o of others) await cancelSuperseded(deps, o.id);
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
