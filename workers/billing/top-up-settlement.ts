import type Stripe from "stripe";
import type { Ledger } from "../ledger/stub";
import type { Database } from "../stores/db";
import {
  fixBillingCurrency,
  moveTopUp,
  recordPaymentIntent,
  type TopUpRow,
  topUpById,
} from "../stores/top-ups";
import { creditMicroCents } from "./top-up-rules";

/** What settling a top-up needs. */
export interface SettlementDeps {
  db: Database;
  ledger: (accountId: string) => Pick<Ledger, "credit">;
  /** Called after a credit landed (batches paused for their balance resume). */
  credited?: (accountId: string) => Promise<void>;
}

/** What a checkout event did to its top-up (for logs and tests). */
export type TopUpOutcome = "credited" | "already_credited" | "processing" | "expired" | "failed" | "ignored";

const OPEN = ["pending", "open"] as const;

/** The top-up a session was opened for, when it is ours and matches. */
async function topUpOf(db: Database, session: Stripe.Checkout.Session): Promise<TopUpRow | undefined> {
  const id = session.metadata?.top_up_id;
  if (!id) return undefined;
  const row = await topUpById(db, id);
  if (!row || (row.checkout_session_id !== null && row.checkout_session_id !== session.id)) return undefined;
  return row;
}

/**
 * Credits a settled top-up: its recorded net EUR amount (never `amount_total`, which includes VAT and may be
 * another currency), once per Checkout Session — the ledger keeps one credit per payment id, so parallel or
 * repeated deliveries, and completed-then-async-succeeded, credit once. The row is marked `paid` after the
 * credit; a failure in between answers 5xx and Stripe's retry finishes the marking.
 */
async function credit(
  deps: SettlementDeps,
  session: Stripe.Checkout.Session,
  row: TopUpRow,
): Promise<TopUpOutcome> {
  const res = await deps.ledger(row.account_id).credit({
    account_id: row.account_id,
    payment_id: session.id,
    amount_micro_cents: creditMicroCents(row.credit_cents),
  });
  const intent = session.payment_intent;
  const intentId = typeof intent === "string" ? intent : intent?.id;
  if (intentId) await recordPaymentIntent(deps.db, row.id, intentId);
  await moveTopUp(deps.db, row.id, [...OPEN, "processing", "expired", "failed"], "paid");
  await fixBillingCurrency(deps.db, row.account_id, row.currency);
  await deps.credited?.(row.account_id);
  return res.duplicate ? "already_credited" : "credited";
}

/**
 * A checkout event of a top-up session: `completed` + `paid` or `async_payment_succeeded` credit;
 * `completed` + unpaid (direct debit on its way) marks it `processing` (it keeps counting against the cap);
 * `async_payment_failed` marks it `failed`, `expired` marks it `expired` (both free its amount).
 */
export async function settleTopUpEvent(
  deps: SettlementDeps,
  type: string,
  session: Stripe.Checkout.Session,
): Promise<TopUpOutcome> {
  const row = await topUpOf(deps.db, session);
  if (!row) return "ignored";
  switch (type) {
    case "checkout.session.completed":
      if (session.payment_status === "paid") return credit(deps, session, row);
      return (await moveTopUp(deps.db, row.id, OPEN, "processing")) ? "processing" : "ignored";
    case "checkout.session.async_payment_succeeded":
      return credit(deps, session, row);
    case "checkout.session.async_payment_failed":
      return (await moveTopUp(deps.db, row.id, [...OPEN, "processing"], "failed")) ? "failed" : "ignored";
    case "checkout.session.expired":
      return (await moveTopUp(deps.db, row.id, OPEN, "expired")) ? "expired" : "ignored";
    default:
      return "ignored";
  }
}
