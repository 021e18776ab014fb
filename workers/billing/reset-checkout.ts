import type Stripe from "stripe";
import type { Currency } from "../../schema/currencies";
import { findPlan } from "../../schema/plans";
import { ApiError } from "../errors";
import type { Database } from "../stores/db";
import { currentSubscription } from "../stores/subscriptions";
import { billingCurrency } from "../stores/top-ups";
import { checkoutBase, isoFromUnix, lineItem, requireStripe, stripeUnavailable } from "./checkout-session";
import { TOP_UP_CHECKOUT_TTL_SECONDS } from "./top-up-rules";

/** The answer of createAllowanceReset. */
export interface ResetCheckoutAnswer {
  id: string;
  object: "allowance_reset_checkout";
  url: string;
  plan: string;
  currency: Currency;
  price_cents: number;
  expires_at: string;
}

/**
 * A Checkout for refilling the current week's allowance at once: 25 % of the subscription's monthly price
 * in the account's currency (the catalogue's `reset_price_cents`). Settled, it calls the ledger's
 * `refillWeekAllowance` once (subscription-events.ts). Without a subscription that grants an allowance →
 * 422 `invalid_value`.
 */
export async function createResetCheckout(
  deps: { db: Database; stripe: Stripe | null },
  req: { accountId: string; returnUrl: string; now?: number },
): Promise<ResetCheckoutAnswer> {
  const stripe = requireStripe(deps.stripe);
  const sub = await currentSubscription(deps.db, req.accountId);
  const plan = sub && findPlan(sub.plan_id);
  if (!plan)
    throw new ApiError("invalid_value", { message: "The account has no plan whose week could be reset." });
  const currency = (await billingCurrency(deps.db, req.accountId)) ?? "EUR";
  const price = plan.prices[currency].reset_price_cents;
  const expiresAt = Math.floor((req.now ?? Date.now()) / 1000) + TOP_UP_CHECKOUT_TTL_SECONDS;
  const metadata = { kind: "reset", account_id: req.accountId, plan_id: plan.id };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create({
      ...checkoutBase({ accountId: req.accountId, returnUrl: req.returnUrl, expiresAt, metadata }),
      mode: "payment",
      line_items: [lineItem(currency, price, `svc ${plan.name}: this week's allowance again`)],
      automatic_tax: { enabled: true },
    });
  } catch (error) {
    throw stripeUnavailable(error);
  }
  return {
    id: session.id,
    object: "allowance_reset_checkout",
    url: session.url!,
    plan: plan.id,
    currency,
    price_cents: price,
    expires_at: isoFromUnix(session.expires_at),
  };
}
