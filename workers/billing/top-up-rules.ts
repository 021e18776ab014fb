import type { Currency } from "../../schema/currencies";
import { MICRO_CENTS_PER_CENT } from "../../schema/plan-pricing";
import { TOP_UP_PACKS } from "../../schema/plans";

/** Smallest and largest top-up, euro cents excluding VAT (spec: EUR 10 to EUR 2,500). */
export const TOP_UP_MIN_CENTS = 1_000;
export const TOP_UP_MAX_CENTS = 250_000;
/** What a new account may top up in total during its first 30 days (spec: EUR 500). */
export const NEW_ACCOUNT_CAP_CENTS = 50_000;
export const NEW_ACCOUNT_DAYS = 30;
/** How long a top-up checkout stays open (its amount counts against the cap until then). */
export const TOP_UP_CHECKOUT_TTL_SECONDS = 3_600;
/** `return_path` of the top-up route (spec). */
export const RETURN_PATH_PATTERN = /^\/[A-Za-z0-9/_-]{0,200}$/;

/** What a top-up charges: the EUR credit, and the price in the account's currency (minor units, excl. VAT). */
export interface TopUpPrice {
  credit_cents: number;
  currency: Currency;
  price_minor: number;
}

/**
 * The price of a top-up of `creditCents` for an account billed in `currency` (null: not yet fixed).
 * EUR and unfixed accounts pay any amount in EUR; others buy one of their currency's packs. Null when an
 * account in another currency asks for an amount that is not a pack.
 */
export function topUpPrice(currency: Currency | null, creditCents: number): TopUpPrice | null {
  if (currency === null || currency === "EUR")
    return { credit_cents: creditCents, currency: "EUR", price_minor: creditCents };
  const pack = TOP_UP_PACKS.find((p) => p.credit_cents === creditCents);
  if (!pack) return null;
  return { credit_cents: creditCents, currency, price_minor: pack.prices[currency] };
}

/** Whether the account is still in its first 30 days at `now` (ms). */
export function inFirstDays(accountCreatedMs: number, now: number): boolean {
  return now < accountCreatedMs + NEW_ACCOUNT_DAYS * 86_400_000;
}

/** Whether a new top-up of `creditCents` keeps a new account within the cap, given what already counts. */
export function withinNewAccountCap(countedCents: number, creditCents: number): boolean {
  return countedCents + creditCents <= NEW_ACCOUNT_CAP_CENTS;
}

/** A top-up's ledger credit: its recorded net EUR amount in micro-cents (never Stripe's `amount_total`). */
export function creditMicroCents(creditCents: number): number {
  return creditCents * MICRO_CENTS_PER_CENT;
}
