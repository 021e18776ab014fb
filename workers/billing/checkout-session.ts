import type Stripe from "stripe";
import { ApiError } from "../errors";
import { logEvent } from "../observability/log";

/** The console's answer for a checkout (spec: Checkout session). */
export interface CheckoutAnswer {
  id: string;
  object: "checkout_session";
  url: string;
  amount_cents: number;
  currency: "EUR";
  expires_at: string;
}

/** What a Stripe Checkout Session is opened for: the fields both kinds (top-up, plan) share. */
export interface CheckoutTarget {
  accountId: string;
  /** Where Stripe sends the browser back: the console origin plus the caller's path. */
  returnUrl: string;
  /** Unix seconds; Stripe accepts 30 minutes to 24 hours ahead. */
  expiresAt: number;
  metadata: Record<string, string>;
}

/** The Stripe client, or 503 `maintenance` when billing is not configured (nothing changed). */
export function requireStripe(stripe: Stripe | null): Stripe {
  if (!stripe) throw new ApiError("maintenance", { message: "Billing is not configured." });
  return stripe;
}

/** The parameters every checkout of ours shares: account reference, expiry, metadata, return URLs. */
export function checkoutBase(target: CheckoutTarget): Stripe.Checkout.SessionCreateParams {
  const back = new URL(target.returnUrl);
  const done = (state: string) => {
    const u = new URL(back);
    u.searchParams.set("checkout", state);
    return u.toString();
  };
  return {
    client_reference_id: target.accountId,
    expires_at: target.expiresAt,
    metadata: target.metadata,
    success_url: done("success"),
    cancel_url: done("cancelled"),
  };
}

/** Stripe's unix-seconds expiry as the date-time the console answers. */
export const isoFromUnix = (seconds: number): string => new Date(seconds * 1000).toISOString();

/** A failed Stripe call as the console answers it: 503 `maintenance`, the caller may retry. */
export function stripeUnavailable(error: unknown): ApiError {
  logEvent("error", "stripe_call_failed", { error: error instanceof Error ? error.name : "unknown" });
  return new ApiError("maintenance", {
    message: "The payment provider is unavailable; nothing was charged.",
  });
}

/** One tax-exclusive line of a checkout (Stripe adds VAT by automatic tax), monthly when `recurring`. */
export function lineItem(
  currency: string,
  unitAmount: number,
  name: string,
  recurring = false,
): Stripe.Checkout.SessionCreateParams.LineItem {
  return {
    quantity: 1,
    price_data: {
      currency: currency.toLowerCase(),
      unit_amount: unitAmount,
      tax_behavior: "exclusive",
      ...(recurring ? { recurring: { interval: "month" as const } } : {}),
      product_data: { name },
    },
  };
}
