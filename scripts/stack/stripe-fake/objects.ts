import { randomBytes } from "node:crypto";
import { type FormValue, str, stringMap } from "./form";

/** Stripe-shaped ids: a prefix and 24 random characters. */
export const stripeId = (prefix: string) =>
  `${prefix}_test_${randomBytes(18).toString("base64url").slice(0, 24)}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The VAT the fake's "automatic tax" adds to tax-exclusive prices (20 %), so amount_total ≠ the net price. */
export const FAKE_VAT_PERCENT = 20;

/** A Checkout Session as Stripe answers it (the fields the SDK types and our Worker read). */
export interface FakeSession {
  id: string;
  object: "checkout.session";
  amount_subtotal: number;
  amount_total: number;
  automatic_tax: { enabled: boolean; status: string | null };
  cancel_url: string | null;
  client_reference_id: string | null;
  created: number;
  currency: string;
  customer: string | null;
  expires_at: number;
  livemode: false;
  metadata: Record<string, string>;
  mode: "payment" | "subscription";
  payment_intent: string | null;
  payment_method_types: string[];
  payment_status: "paid" | "unpaid" | "no_payment_required";
  status: "open" | "complete" | "expired";
  subscription: string | null;
  success_url: string | null;
  total_details: { amount_discount: number; amount_shipping: number; amount_tax: number };
  url: string | null;
  /** Not Stripe's: what the subscription will carry (subscription_data.metadata). */
  subscription_metadata: Record<string, string>;
  recurring_interval: string | null;
}

/** Builds a session from the SDK's form parameters; throws a message for a parameter Stripe would refuse. */
export function sessionFromParams(p: Record<string, FormValue>, payBase: string): FakeSession {
  const mode = str(p, "mode");
  if (mode !== "payment" && mode !== "subscription") throw new Error("mode: must be payment or subscription");
  const item = (p.line_items as FormValue[] | undefined)?.[0];
  const currency = str(item, "price_data", "currency");
  const unit = Number(str(item, "price_data", "unit_amount"));
  const quantity = Number(str(item, "quantity") ?? "1");
  if (!currency || !Number.isInteger(unit) || unit < 1) throw new Error("line_items[0][price_data]: invalid");
  const now = nowSeconds();
  const expires = Number(str(p, "expires_at") ?? now + 86_400);
  if (expires < now + 1_800 || expires > now + 86_400)
    throw new Error("expires_at: must be 30 minutes to 24 hours after the session is created");
  const subtotal = unit * quantity;
  const taxed = str(p, "automatic_tax", "enabled") === "true";
  const tax = taxed ? Math.round((subtotal * FAKE_VAT_PERCENT) / 100) : 0;
  const id = stripeId("cs");
  return {
    id,
    object: "checkout.session",
    amount_subtotal: subtotal,
    amount_total: subtotal + tax,
    automatic_tax: { enabled: taxed, status: taxed ? "complete" : null },
    cancel_url: str(p, "cancel_url") ?? null,
    client_reference_id: str(p, "client_reference_id") ?? null,
    created: now,
    currency,
    customer: str(p, "customer") ?? null,
    expires_at: expires,
    livemode: false,
    metadata: stringMap(p.metadata),
    mode,
    payment_intent: null,
    payment_method_types: ["card", "sepa_debit"],
    payment_status: "unpaid",
    status: "open",
    subscription: null,
    success_url: str(p, "success_url") ?? null,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: tax },
    url: `${payBase}/pay/${id}`,
    subscription_metadata: stringMap(
      (p.subscription_data as Record<string, FormValue> | undefined)?.metadata,
    ),
    recurring_interval: str(item, "price_data", "recurring", "interval") ?? null,
  };
}

/** A recurring Price as Stripe answers it (inline `price_data` makes one too). */
export interface FakePrice {
  id: string;
  object: "price";
  active: boolean;
  currency: string;
  product: string;
  recurring: { interval: string; interval_count: number } | null;
  tax_behavior: string;
  type: "recurring" | "one_time";
  unit_amount: number;
}

/** A Subscription as Stripe answers it (the fields our Worker reads; periods live on the items). */
export interface FakeSubscription {
  id: string;
  object: "subscription";
  status: string;
  customer: string;
  metadata: Record<string, string>;
  cancel_at_period_end: boolean;
  created: number;
  currency: string;
  schedule: string | null;
  items: {
    object: "list";
    data: {
      id: string;
      object: "subscription_item";
      price: FakePrice;
      quantity: number;
      current_period_start: number;
      current_period_end: number;
    }[];
  };
}

/** One month after `unix` seconds (Stripe's monthly billing anchor, UTC). */
export function addMonths(unix: number, months = 1): number {
  const d = new Date(unix * 1000);
  d.setUTCMonth(d.getUTCMonth() + months);
  return Math.floor(d.getTime() / 1000);
}

/** The subscription a paid subscription-mode session starts, at `now` (the fake's clock). */
export function subscriptionOf(s: FakeSession, customer: string, now = nowSeconds()): FakeSubscription {
  return {
    id: stripeId("sub"),
    object: "subscription",
    status: "active",
    customer,
    metadata: { ...s.subscription_metadata },
    cancel_at_period_end: false,
    created: now,
    currency: s.currency,
    schedule: null,
    items: {
      object: "list",
      data: [
        {
          id: stripeId("si"),
          object: "subscription_item",
          price: {
            id: stripeId("price"),
            object: "price",
            active: true,
            currency: s.currency,
            product: stripeId("prod"),
            recurring: { interval: s.recurring_interval ?? "month", interval_count: 1 },
            tax_behavior: "exclusive",
            type: "recurring",
            unit_amount: s.amount_subtotal,
          },
          quantity: 1,
          current_period_start: now,
          current_period_end: addMonths(now),
        },
      ],
    },
  };
}

/** What a session shows the world (our private fields stripped). */
export function publicSession(
  s: FakeSession,
): Omit<FakeSession, "subscription_metadata" | "recurring_interval"> {
  const { subscription_metadata: _m, recurring_interval: _r, ...rest } = s;
  return rest;
}
