import type Stripe from "stripe";
import { type ChargebackDeps, chargebackEvent } from "./chargebacks";
import { downgradeScheduleEvent } from "./subscription-downgrade";
import { planCheckoutEvent, type SubscriptionDeps, subscriptionEvent } from "./subscription-events";
import { type SettlementDeps, settleTopUpEvent } from "./top-up-settlement";

/** What handling Stripe's events needs. */
export type StripeEventDeps = SettlementDeps & SubscriptionDeps & ChargebackDeps;

const SUBSCRIPTION_EVENTS = new Set([
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
]);

const CHECKOUT_EVENTS = new Set([
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired",
]);

/**
 * Routes a verified Stripe event to its handler by type and by the `kind` our checkouts carry in their
 * metadata; answers what was done (`ignored` for events of no interest). Throws on any failure, so the
 * webhook answers 5xx and Stripe retries; every handler is safe to run again for the same event.
 */
export async function handleStripeEvent(deps: StripeEventDeps, event: Stripe.Event): Promise<string> {
  if (CHECKOUT_EVENTS.has(event.type)) {
    const session = event.data.object as Stripe.Checkout.Session;
    const kind = session.metadata?.kind;
    if (kind === "top_up") return settleTopUpEvent(deps, event.type, session);
    if (kind === "plan" || kind === "reset") return planCheckoutEvent(deps, event.type, session);
  }
  if (event.type === "charge.dispute.created" || event.type === "charge.refunded")
    return chargebackEvent(deps, event, event.data.object);
  if (SUBSCRIPTION_EVENTS.has(event.type))
    return subscriptionEvent(deps, event.type, event.data.object as Stripe.Subscription);
  if (event.type.startsWith("subscription_schedule."))
    return downgradeScheduleEvent(deps, event.type, event.data.object as Stripe.SubscriptionSchedule);
  return "ignored";
}
