import { type FakeSession, nowSeconds, stripeId } from "./objects";

/** A Charge as Stripe answers it (the fields its webhooks carry that our Worker or a reader needs). */
export interface FakeCharge {
  id: string;
  object: "charge";
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  balance_transaction: string;
  captured: boolean;
  created: number;
  currency: string;
  customer: string | null;
  disputed: boolean;
  livemode: false;
  metadata: Record<string, string>;
  paid: boolean;
  payment_intent: string;
  payment_method: string;
  refunded: boolean;
  status: "succeeded";
}

/** A Dispute as Stripe answers it. */
export interface FakeDispute {
  id: string;
  object: "dispute";
  amount: number;
  balance_transactions: { id: string; object: "balance_transaction"; amount: number; currency: string }[];
  charge: string;
  created: number;
  currency: string;
  evidence_details: { due_by: number; has_evidence: boolean; past_due: boolean; submission_count: number };
  is_charge_refundable: boolean;
  livemode: false;
  metadata: Record<string, string>;
  payment_intent: string;
  reason: string;
  status: "needs_response";
}

/** The charge a paid payment-mode session made (its full amount, VAT included). */
export function chargeOf(s: FakeSession): FakeCharge {
  return {
    id: stripeId("ch"),
    object: "charge",
    amount: s.amount_total,
    amount_captured: s.amount_total,
    amount_refunded: 0,
    balance_transaction: stripeId("txn"),
    captured: true,
    created: nowSeconds(),
    currency: s.currency,
    customer: s.customer,
    disputed: false,
    livemode: false,
    metadata: {},
    paid: true,
    payment_intent: s.payment_intent!,
    payment_method: stripeId("pm"),
    refunded: false,
    status: "succeeded",
  };
}

/** Refunds `amount` (default: what is left) of a charge, as the dashboard or the API would. */
export function refundCharge(
  charge: FakeCharge,
  amount = charge.amount - charge.amount_refunded,
): FakeCharge {
  if (!Number.isInteger(amount) || amount < 1 || charge.amount_refunded + amount > charge.amount)
    throw new Error(`Refund amount (${amount}) is greater than the unrefunded amount on the charge.`);
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded === charge.amount;
  return charge;
}

/** The customer's bank disputes a charge (the whole of it, as card disputes almost always are). */
export function disputeCharge(charge: FakeCharge, reason = "fraudulent"): FakeDispute {
  if (charge.disputed) throw new Error(`Charge ${charge.id} has already been disputed.`);
  charge.disputed = true;
  const now = nowSeconds();
  return {
    id: stripeId("dp"),
    object: "dispute",
    amount: charge.amount - charge.amount_refunded,
    balance_transactions: [
      {
        id: stripeId("txn"),
        object: "balance_transaction",
        amount: -charge.amount,
        currency: charge.currency,
      },
    ],
    charge: charge.id,
    created: now,
    currency: charge.currency,
    evidence_details: { due_by: now + 7 * 86_400, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason,
    status: "needs_response",
  };
}
