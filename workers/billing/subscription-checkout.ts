import type Stripe from "stripe";
import { type Currency, currencyForCountry } from "../../schema/currencies";
import { findPlan, type PlanTerms } from "../../schema/plans";
import type { EmailSender } from "../clients/email";
import { ApiError } from "../errors";
import type { Database } from "../stores/db";
import { claimSeat, tagCheckoutHold } from "../stores/seats";
import { billingCurrency } from "../stores/top-ups";
import { checkoutBase, isoFromUnix, lineItem, requireStripe, stripeUnavailable } from "./checkout-session";
import { releaseAndInvite } from "./seat-service";

/** How long a plan checkout holds its seat: at most an hour (spec); Stripe's minimum expiry is 30 minutes. */
export const PLAN_CHECKOUT_TTL_SECONDS = 3_600;

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

/**
 * createSubscriptionCheckout: holds a seat for the checkout (1 hour; 409 `plan_sold_out` when none is
 * left, race-free), then opens a Stripe Checkout Session in subscription mode in the account's currency
 * (fixed, else the caller's region). Stripe unreachable → the seat is released, 503 `maintenance`.
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
    claimSeat(tx, {
      accountId: req.accountId,
      planId: plan.id,
      total: plan.seats_total,
      kind: "checkout",
      ref: null,
      ttlSeconds: PLAN_CHECKOUT_TTL_SECONDS,
    }),
  );
  if (held === "sold_out") throw new ApiError("plan_sold_out", { param: "plan" });
  if (held === "subscribed")
    throw new ApiError("invalid_value", { param: "plan", message: "The account already has this plan." });
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
