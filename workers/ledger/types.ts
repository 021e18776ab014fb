import type { Tier } from "../../schema/pricing";

/** A debit asked of the ledger: the exact charge is known before the request runs (billing rule 1). */
export interface DebitInput {
  request_id: string;
  account_id: string;
  /** Billable input tokens. */
  tokens: number;
  /** `tokens × unit price`; 0 for test keys. */
  amount_micro_cents: number;
  test: boolean;
  /** Injected clock for tests (ms since epoch). */
  now?: number;
}

export type DebitResult =
  | {
      ok: true;
      /** True when this request id had already been debited (nothing new taken). */
      duplicate: boolean;
      balance_before: number;
      balance_after: number;
      /** Tier in force before this request (`test` for test keys). */
      tier: Tier | "test";
      /** Tokens taken from the week's plan allowance. */
      allowance_tokens: number;
      /** Micro-cents taken from the balance (the charge minus the allowance part). */
      balance_micro_cents: number;
    }
  | { ok: false; balance: number; required: number }
  /** The request id was settled by a takeover of its idempotency record: it may no longer charge. */
  | { ok: false; superseded: true };

export interface RefundResult {
  /** False when no debit exists for the id. */
  found: boolean;
  /** True when the refund had already been made (idempotent). */
  duplicate: boolean;
  balance_after: number;
}

export interface CreditInput {
  account_id: string;
  payment_id: string;
  amount_micro_cents: number;
  now?: number;
}

export interface CreditResult {
  duplicate: boolean;
  balance_after: number;
}

/** A credit given back (a disputed or refunded payment), as one Stripe event asks it. */
export interface ChargebackInput {
  account_id: string;
  /** The Stripe event: each is written once. */
  event_id: string;
  /** The payment given back (the top-up): its chargebacks together never pass `target_micro_cents`. */
  payment_id: string;
  /** How much of the payment's credit is given back in all, this event included (it only grows). */
  target_micro_cents: number;
  now?: number;
}

export interface ChargebackResult {
  duplicate: boolean;
  /** Micro-cents taken now (0 when earlier events took as much already). */
  taken: number;
  balance_after: number;
}

export interface BalanceView {
  balance_micro_cents: number;
  month: string;
  month_tokens: number;
  tier: Tier;
  next_tier_at_tokens: number | null;
  week: string;
  week_allowance_tokens: number;
  week_allowance_left: number;
}

/** A journal row as flushed to Postgres `ledger_journal`. */
export interface JournalRow {
  seq: number;
  kind: "debit" | "refund" | "credit" | "chargeback";
  ref: string;
  account_id: string;
  amount_micro_cents: number;
  tokens: number;
  allowance_tokens: number;
  test: number;
  at: number;
}
