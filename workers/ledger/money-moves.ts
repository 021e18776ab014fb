import { monthOf, weekOf } from "../../schema/periods";
import { allowanceLeft, chargebackTake, checkedBalance, debitTier, splitCharge } from "./ledger-arithmetic";
import type { JournalEntry, LedgerTables } from "./ledger-tables";
import type {
  ChargebackInput,
  ChargebackResult,
  CreditInput,
  CreditResult,
  DebitInput,
  DebitResult,
  RefundResult,
} from "./types";

// Each move is one synchronous step over the tables, run by the ledger inside `transactionSync`: no await, so
// it is atomic under any concurrency. The journal's UNIQUE (kind, ref) and the checks before each write make
// every move idempotent.

/** Takes a debit's exact charge (see `AccountLedger.debit`). */
export function debitMove(t: LedgerTables, input: DebitInput, now: number): DebitResult {
  if (t.isSettled(input.request_id)) return { ok: false, superseded: true };
  const balance = t.balanceNow();
  const month = monthOf(now);
  const week = weekOf(now);
  const prior = t.debitOf(input.request_id);
  if (prior) {
    return {
      ok: true,
      duplicate: true,
      balance_before: balance,
      balance_after: balance,
      tier: debitTier(input.test, t.counter("month_tokens", prior.month)),
      allowance_tokens: prior.allowance_tokens,
      balance_micro_cents: prior.amount_micro_cents,
    };
  }
  const monthTokens = t.counter("month_tokens", month);
  let allowanceTokens = 0;
  let fromBalance = 0;
  if (!input.test && input.amount_micro_cents > 0) {
    const left = allowanceLeft(t.allowance(), t.counter("week_used", week));
    ({ allowanceTokens, fromBalance } = splitCharge(input.tokens, input.amount_micro_cents, left));
    if (fromBalance > balance) return { ok: false, balance, required: input.amount_micro_cents };
  }
  t.setBalance(balance - fromBalance);
  t.noteAccount(input.account_id);
  if (allowanceTokens > 0) t.addCounter("week_used", week, allowanceTokens);
  if (!input.test) t.addCounter("month_tokens", month, input.tokens);
  t.journal({
    kind: "debit",
    ref: input.request_id,
    account_id: input.account_id,
    amount_micro_cents: fromBalance,
    tokens: input.tokens,
    allowance_tokens: allowanceTokens,
    test: input.test ? 1 : 0,
    month,
    week,
    at: now,
  });
  return {
    ok: true,
    duplicate: false,
    balance_before: balance,
    balance_after: balance - fromBalance,
    tier: debitTier(input.test, monthTokens),
    allowance_tokens: allowanceTokens,
    balance_micro_cents: fromBalance,
  };
}

/** The exact inverse of a request id's debit (balance, allowance, month tokens), once. */
export function refundMove(t: LedgerTables, requestId: string, now: number): RefundResult {
  const balance = t.balanceNow();
  const debit = t.debitOf(requestId);
  if (!debit) return { found: false, duplicate: false, balance_after: balance };
  if (t.hasJournal("refund", requestId)) return { found: true, duplicate: true, balance_after: balance };
  t.setBalance(balance + debit.amount_micro_cents);
  if (debit.allowance_tokens > 0) t.addCounter("week_used", debit.week, -debit.allowance_tokens);
  if (!debit.test) t.addCounter("month_tokens", debit.month, -debit.tokens);
  t.journal({ ...debit, kind: "refund", at: now });
  return { found: true, duplicate: false, balance_after: balance + debit.amount_micro_cents };
}

/**
 * Settles the earlier owners of an idempotency record a retry takes over (see `AccountLedger.settleLapsed`): the
 * first kept completion is to be replayed, every other owner's debit is refunded, each owner is marked settled.
 */
export function settleLapsedMove(
  t: LedgerTables,
  owners: string[],
  now: number,
): { completion: string | null; refunded: string[] } {
  let completion: string | null = null;
  const refunded: string[] = [];
  for (const id of owners) {
    t.settle(id, now);
    const kept = t.completionOf(id);
    if (kept !== undefined && completion === null) {
      completion = kept;
      continue;
    }
    const refund = refundMove(t, id, now);
    if (refund.found && !refund.duplicate) refunded.push(id);
  }
  return { completion, refunded };
}

/** The journal row of a payment's move (a credit, a chargeback): micro-cents only, no tokens. */
function paymentEntry(
  kind: "credit" | "chargeback",
  ref: string,
  accountId: string,
  amountMicroCents: number,
  now: number,
): JournalEntry {
  return {
    kind,
    ref,
    account_id: accountId,
    amount_micro_cents: amountMicroCents,
    tokens: 0,
    allowance_tokens: 0,
    test: 0,
    month: monthOf(now),
    week: weekOf(now),
    at: now,
  };
}

/** Adds a settled payment to the balance, once per payment id. */
export function creditMove(t: LedgerTables, input: CreditInput, now: number): CreditResult {
  const balance = t.balanceNow();
  if (t.hasJournal("credit", input.payment_id)) return { duplicate: true, balance_after: balance };
  const after = checkedBalance(balance + input.amount_micro_cents, "balance would exceed 2^53 micro-cents");
  t.setBalance(after);
  t.noteAccount(input.account_id);
  t.journal(paymentEntry("credit", input.payment_id, input.account_id, input.amount_micro_cents, now));
  return { duplicate: false, balance_after: after };
}

/** Gives back a disputed or refunded payment's credit, once per event, never past the payment's target. */
export function chargebackMove(t: LedgerTables, input: ChargebackInput, now: number): ChargebackResult {
  const balance = t.balanceNow();
  if (t.hasJournal("chargeback", input.event_id))
    return { duplicate: true, taken: 0, balance_after: balance };
  const key = `chargeback:${input.payment_id}`;
  const before = Number(t.getMeta(key) ?? "0");
  const taken = chargebackTake(input.target_micro_cents, before);
  const after = checkedBalance(balance - taken, "balance would pass -2^53 micro-cents");
  t.setBalance(after);
  t.setMeta(key, String(before + taken));
  t.noteAccount(input.account_id);
  t.journal(paymentEntry("chargeback", input.event_id, input.account_id, taken, now));
  return { duplicate: false, taken, balance_after: after };
}

/** Refills the current week's plan allowance once per payment id; false when that payment was applied. */
export function refillMove(t: LedgerTables, paymentId: string, now: number): boolean {
  if (t.getMeta(`refill:${paymentId}`) !== undefined) return false;
  t.setMeta(`refill:${paymentId}`, String(now));
  t.clearWeek(weekOf(now));
  return true;
}
