import { DurableObject } from "cloudflare:workers";
import { monthOf, weekOf } from "../../schema/periods";
import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";
import { flushJournal } from "../stores/ledger-journal";
import { clearRefundIntents, pendingRefundIntents } from "../stores/refund-intents";
import { USAGE_BATCH } from "../stores/usage";
import { assertAmount, assertCredit, balanceView } from "./ledger-arithmetic";
import { LedgerTables } from "./ledger-tables";
import {
  chargebackMove,
  creditMove,
  debitMove,
  refillMove,
  refundMove,
  settleLapsedMove,
} from "./money-moves";
import type {
  BalanceView,
  ChargebackInput,
  ChargebackResult,
  CreditInput,
  CreditResult,
  DebitInput,
  DebitResult,
  JournalRow,
  RefundResult,
} from "./types";

const FLUSH_BATCH = 500;
/** As long as idempotency records live (spec: 24 hours). */
const COMPLETION_KEEP_MS = 24 * 3600 * 1000;
const FLUSH_RETRY_MS = 5_000;
/**
 * How long after a write the alarm copies the journal to Postgres (and applies pending refund intents): the usage
 * log's batching window, so a busy account's ledger sends one flush per window, not one every few requests
 * (issue 53: each flush is two Postgres statements).
 */
const FLUSH_DELAY_MS = USAGE_BATCH.windowMs;

/**
 * One per account: balance (integer micro-cents), the week's plan allowance, month-to-date billable
 * tokens and tier, and a journal of every debit, refund and credit. Each RPC method runs synchronous SQL
 * with no await inside its critical section, so it is one atomic step under any concurrency. Amounts are
 * JS numbers checked to be safe integers (< 2^53 micro-cents ≈ EUR 90 million per account).
 */
export class AccountLedger extends DurableObject<Env> {
  private readonly tables: LedgerTables;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.tables = new LedgerTables(ctx.storage.sql);
  }

  private scheduleFlush(): void {
    if (!this.env.DATABASE_URL) return;
    void this.ctx.storage.getAlarm().then((at) => {
      if (at === null) return this.ctx.storage.setAlarm(Date.now() + FLUSH_DELAY_MS);
    });
  }

  /**
   * Takes the exact charge in one step: the week's plan allowance when it covers the whole request, else the
   * balance pays all of it; nothing when the balance falls short.
   */
  async debit(input: DebitInput): Promise<DebitResult> {
    assertAmount(input.tokens, "tokens");
    assertAmount(input.amount_micro_cents, "amount_micro_cents");
    const now = input.now ?? Date.now();
    const result = this.ctx.storage.transactionSync(() => debitMove(this.tables, input, now));
    if (result.ok && !result.duplicate) this.scheduleFlush();
    return result;
  }

  /** Exact inverse of the debit of `request_id` (balance, allowance, month tokens); idempotent. */
  async refund(request_id: string, now: number = Date.now()): Promise<RefundResult> {
    const result = this.ctx.storage.transactionSync(() => refundMove(this.tables, request_id, now));
    if (result.found && !result.duplicate) this.scheduleFlush();
    return result;
  }

  /**
   * Keeps a decide call's completion (the original's identifiers and charge, never content) when the
   * idempotency store could not take it, so a retry that takes over the record replays it instead of
   * running and charging again.
   */
  async keepCompletion(request_id: string, result: string, now: number = Date.now()): Promise<void> {
    // A call already settled by a takeover (refunded) keeps nothing: its retry runs, or ran, on its own charge.
    if (this.tables.isSettled(request_id)) return;
    this.tables.keepCompletion(request_id, result, now);
  }

  /**
   * Settles, in one atomic step, the earlier owners of an idempotency record a retry is taking over: the
   * first kept completion (in the record's order) is to be replayed; every other owner's debit, if any, is
   * refunded — those calls never recorded an answer, and the retry is charged instead, never both. Each owner
   * is marked settled: a later debit under its id is refused and a later completion is not kept, so a stalled
   * owner that wakes up cannot add a charge. Idempotent: settling again returns the same completion and
   * refunds nothing new.
   */
  async settleLapsed(
    owners: string[],
    now: number = Date.now(),
  ): Promise<{ completion: string | null; refunded: string[] }> {
    const out = this.ctx.storage.transactionSync(() => settleLapsedMove(this.tables, owners, now));
    if (out.refunded.length > 0) this.scheduleFlush();
    return out;
  }

  /** Adds a settled payment to the balance once per payment id. */
  async credit(input: CreditInput): Promise<CreditResult> {
    assertCredit(input.amount_micro_cents);
    const now = input.now ?? Date.now();
    const result = this.ctx.storage.transactionSync(() => creditMove(this.tables, input, now));
    if (!result.duplicate) this.scheduleFlush();
    return result;
  }

  /**
   * Gives back a disputed or refunded payment's credit, once per event: the payment's chargebacks together
   * reach `target_micro_cents` and never pass it. The balance may go below zero (the money already left).
   */
  async chargeback(input: ChargebackInput): Promise<ChargebackResult> {
    assertAmount(input.target_micro_cents, "target_micro_cents");
    const now = input.now ?? Date.now();
    const result = this.ctx.storage.transactionSync(() => chargebackMove(this.tables, input, now));
    if (!result.duplicate) this.scheduleFlush();
    return result;
  }

  /** Sets the plan's tokens per 7-day (ISO) week; 0 removes the plan. Unused tokens do not roll over. */
  async setPlanAllowance(tokens: number): Promise<void> {
    assertAmount(tokens, "tokens");
    this.tables.setMeta("week_allowance_tokens", String(tokens));
  }

  /**
   * Refills the current week's plan allowance at once (a paid reset), once per payment id: the week's used
   * tokens go back to 0. Answers false when that payment was already applied.
   */
  async refillWeekAllowance(payment_id: string, now: number = Date.now()): Promise<boolean> {
    return this.ctx.storage.transactionSync(() => refillMove(this.tables, payment_id, now));
  }

  async balance(now: number = Date.now()): Promise<BalanceView> {
    const month = monthOf(now);
    const week = weekOf(now);
    return balanceView({
      balance: this.tables.balanceNow(),
      month,
      monthTokens: this.tables.counter("month_tokens", month),
      week,
      allowance: this.tables.allowance(),
      weekUsed: this.tables.counter("week_used", week),
    });
  }

  /** Journal rows in order (for reconciliation and tests). */
  async journalRows(): Promise<JournalRow[]> {
    return this.tables.journalRows();
  }

  /** Copies unflushed journal rows to Postgres (idempotent by kind + ref); returns how many were sent. */
  async flush(): Promise<number> {
    if (!this.env.DATABASE_URL) return 0;
    let sent = 0;
    for (;;) {
      const rows = this.tables.unflushed(FLUSH_BATCH);
      if (rows.length === 0) return sent;
      await flushJournal(this.env, rows);
      this.tables.markFlushed(rows[rows.length - 1]!.seq);
      sent += rows.length;
    }
  }

  /**
   * Applies the refunds the Worker could not deliver (recorded in Postgres when both of its attempts failed),
   * then forgets them; returns how many were applied. Idempotent: `refund` moves a charge back once. The
   * sweep passes the account id, which a ledger whose first debit never landed has not stored.
   */
  async applyRefundIntents(accountId = this.tables.getMeta("account_id")): Promise<number> {
    if (!this.env.DATABASE_URL || accountId === undefined) return 0;
    const ids = await pendingRefundIntents(this.env, accountId);
    for (const id of ids) await this.refund(id);
    await clearRefundIntents(this.env, ids);
    return ids.length;
  }

  override async alarm(): Promise<void> {
    // Kept completions serve retries within the idempotency window only.
    this.tables.prune(Date.now() - COMPLETION_KEEP_MS);
    try {
      await this.applyRefundIntents();
      await this.flush();
    } catch (err) {
      logEvent("error", "ledger_flush_failed", { retrying: true, error: errorText(err) });
      await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
    }
  }
}
