import type Stripe from "stripe";
import type { Ledger } from "../ledger/stub";
import { logEvent } from "../observability/log";
import { setAccountStatus } from "../stores/accounts";
import type { Database } from "../stores/db";
import { topUpByPaymentIntent } from "../stores/top-ups";
import { creditMicroCents } from "./top-up-rules";

/** What giving back a disputed or refunded top-up needs. */
export interface ChargebackDeps {
  db: Database;
  ledger: (accountId: string) => Pick<Ledger, "chargeback">;
}

const intentOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : v?.id);

/**
 * How much of a top-up's credit a dispute or refund gives back in all: a dispute all of it (card disputes
 * are of the whole payment); a refund the refunded share of what was charged, rounded down to the micro-cent
 * (`amount_refunded` is Stripe's running total, so later partial refunds raise the target).
 */
function targetOf(type: string, object: Stripe.Dispute | Stripe.Charge, creditMicro: number): number {
  if (type === "charge.dispute.created") return creditMicro;
  const charge = object as Stripe.Charge;
  if (!(charge.amount > 0)) return 0;
  return Math.floor((creditMicro * Math.min(charge.amount_refunded, charge.amount)) / charge.amount);
}

/**
 * `charge.dispute.created` and `charge.refunded` of a top-up's payment: its credit is taken back from the
 * ledger, once per event (a redelivered or parallel event takes nothing more; the top-up's chargebacks never
 * pass its credit). The balance may go below zero: the account is then suspended (403 `account_suspended`
 * on every key and session) until an operator settles it. Payments that are not top-ups are ignored.
 */
export async function chargebackEvent(
  deps: ChargebackDeps,
  event: { id: string; type: string },
  object: Stripe.Dispute | Stripe.Charge,
): Promise<string> {
  const intent = intentOf(object.payment_intent);
  const row = intent ? await topUpByPaymentIntent(deps.db, intent) : undefined;
  if (!row) return "ignored";
  const credit = creditMicroCents(row.credit_cents);
  const res = await deps.ledger(row.account_id).chargeback({
    account_id: row.account_id,
    event_id: event.id,
    payment_id: row.id,
    target_micro_cents: targetOf(event.type, object, credit),
  });
  if (res.taken > 0 && res.balance_after < 0) {
    await setAccountStatus(deps.db, row.account_id, "suspended");
    logEvent("error", "account_suspended_by_chargeback", { alert: true, account_id: row.account_id });
    return "suspended";
  }
  return res.duplicate ? "already_charged_back" : "charged_back";
}
