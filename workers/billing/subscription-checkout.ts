import type Stripe from "stripe";
import { type Currency, currencyForCountry } from "../../schema/currencies";
import { findPlan, type PlanTerms } from "../../schema/plans";
import type { EmailSender } from "../clients/email";
import { ApiError } from "../errors";
import { logEvent } from "../observability/log";
import type { Database } from "../stores/db";
import { claimCheckoutSeat, tagCheckoutHold } from "../stores/seats";
import { billingCurrency } from "../stores/top-ups";
import { checkoutBase, isoFromUnix, lineItem, requireStripe, stripeUnavailable } from "./checkout-session";
import { inviteWaiting, releaseAndInvite } from "./seat-service";

/** How long a plan checkout holds its seat: at most an hour (spec); Stripe's minimum expiry is 30 minutes. */
export const PLAN_CHECKOUT_TTL_SECONDS = 3_600;
/** How many times one seat hold may be renewed by a new checkout of the same plan (docs/decisions.md). */
export const PLAN_CHECKOUT_MAX_RENEWALS = 2;

/** A subscription checkout asked for. */
export interface SubscriptionCheckoutRequest {
  accountId: string;
  planId: string;
  returnUrl: string;
  /** The caller's country (ISO 3166-1 alpha-2, from Cloudflare), for an account whose currency is not fixed. */
  country: string | undefined;
  now?: number;
}

/** The answer of createSubscriptionCheckout. */
export interface SubscriptionCheckoutAnswer {
  id: string;
  object: "subscription_checkout";
  url: string;
  plan: string;
  currency: Currency;
  price_cents: number;
  expires_at: string;
}

/** The plan, or 422 `invalid_value` (`param` plan) for an id the catalogue lacks. */
export function requirePlan(planId: string): PlanTerms {
  const plan = findPlan(planId);
  if (!plan) throw new ApiError("invalid_value", { param: "plan", message: `No plan \`${planId}\`.` });
  return plan;
}

/** Expires Checkout Sessions a newer checkout replaced, so only the newest can be paid; failures are logged. */
async function expireReplaced(stripe: Stripe, refs: (string | null)[]): Promise<void> {
  for (const ref of refs) {
    if (!ref) continue;
    await stripe.checkout.sessions.expire(ref).catch((error) => {
      logEvent("warn", "replaced_checkout_not_expired", {
        error: error instanceof Error ? error.name : "unknown",
      });
    });
  }
}

/**
 * createSubscriptionCheckout: holds a seat for the checkout (1 hour, race-free; one checkout hold per
 * account, see `claimCheckoutSeat`: 409 `plan_sold_out`, or `checkout_renewals_exceeded` with `retry-after`
 * until the open one expires), then opens a Stripe Checkout Session in subscription mode in the account's
 * currency (fixed, else the caller's region) and expires the sessions it replaced. Stripe unreachable → the
 * seat is released, 503 `maintenance`.
 */
export async function createSubscriptionCheckout(
  deps: { db: Database; stripe: Stripe | null; email?: EmailSender },
  req: SubscriptionCheckoutRequest,
): Promise<SubscriptionCheckoutAnswer> {
  const stripe = requireStripe(deps.stripe);
  const plan = requirePlan(req.planId);
  const currency = (await billingCurrency(deps.db, req.accountId)) ?? currencyForCountry(req.country);
  const price = plan.prices[currency].price_cents;
  const held = await deps.db.transaction((tx) =>
    claimCheckoutSeat(tx, {
      accountId: req.accountId,
      planId: plan.id,
      total: plan.seats_total,
      ttlSeconds: PLAN_CHECKOUT_TTL_SECONDS,
      maxRenewals: PLAN_CHECKOUT_MAX_RENEWALS,
    }),
  );
  if (held.outcome === "sold_out") {
    await inviteWaiting(deps, plan.id);
    throw new ApiError("plan_sold_out", { param: "plan" });
  }
  if (held.outcome === "renewals_exceeded")
    throw new ApiError("checkout_renewals_exceeded", {
      param: "plan",
      retryAfter: held.expiresInSeconds,
      message: "This plan's checkout is open already; pay it, or open a new one once it expires.",
    });
  if (held.outcome === "subscribed")
    throw new ApiError("invalid_value", { param: "plan", message: "The account already has this plan." });
  for (const r of held.replaced) if (r.planId !== plan.id) await inviteWaiting(deps, r.planId);
  const metadata = { kind: "plan", account_id: req.accountId, plan_id: plan.id };
  const expiresAt = Math.floor((req.now ?? Date.now()) / 1000) + PLAN_CHECKOUT_TTL_SECONDS;
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create({
      ...checkoutBase({ accountId: req.accountId, returnUrl: req.returnUrl, expiresAt, metadata }),
      mode: "subscription",
      line_items: [lineItem(currency, price, `svc ${plan.name}`, true)],
      automatic_tax: { enabled: true },
      subscription_data: { metadata },
    });
  } catch (error) {
    await releaseAndInvite(deps, { accountId: req.accountId, planId: plan.id, kinds: ["checkout"] });
    throw stripeUnavailable(error);
  }
  await tagCheckoutHold(deps.db, req.accountId, plan.id, session.id);
  await expireReplaced(
    stripe,
    held.replaced.map((r) => r.ref),
  );
  return {
    id: session.id,
    object: "subscription_checkout",
    url: session.url!,
    plan: plan.id,
    currency,
    price_cents: price,
    expires_at: isoFromUnix(session.expires_at),
  };
}
