import { DurableObject } from "cloudflare:workers";
import { monthOf, weekOf } from "../../schema/periods";
import { nextTierAt, tierFor } from "../../schema/pricing";
import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";
import { flushJournal } from "../stores/ledger-journal";
import { clearRefundIntents, pendingRefundIntents } from "../stores/refund-intents";
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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS month_tokens (month TEXT PRIMARY KEY, tokens INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS week_used (week TEXT PRIMARY KEY, tokens INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS journal (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  ref TEXT NOT NULL,
  account_id TEXT NOT NULL,
  amount_micro_cents INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  allowance_tokens INTEGER NOT NULL,
  test INTEGER NOT NULL,
  month TEXT NOT NULL,
  week TEXT NOT NULL,
  at INTEGER NOT NULL,
  flushed INTEGER NOT NULL DEFAULT 0,
  UNIQUE (kind, ref)
);
CREATE TABLE IF NOT EXISTS completions (request_id TEXT PRIMARY KEY, result TEXT NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS settled (request_id TEXT PRIMARY KEY, at INTEGER NOT NULL);
`;

const FLUSH_BATCH = 500;
/** As long as idempotency records live (spec: 24 hours). */
const COMPLETION_KEEP_MS = 24 * 3600 * 1000;
const FLUSH_RETRY_MS = 5_000;

function assertAmount(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative safe integer`);
}

/**
 * One per account: balance (integer micro-cents), the week's plan allowance, month-to-date billable
 * tokens and tier, and a journal of every debit, refund and credit. Each RPC method runs synchronous SQL
 * with no await inside its critical section, so it is one atomic step under any concurrency. Amounts are
 * JS numbers checked to be safe integers (< 2^53 micro-cents ≈ EUR 90 million per account).
 */
export class AccountLedger extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(SCHEMA);
  }

  private getMeta(k: string): string | undefined {
    const rows = this.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", k).toArray();
    return rows[0]?.v;
  }

  private setMeta(k: string, v: string): void {
    this.sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", k, v);
  }

  private balanceNow(): number {
    return Number(this.getMeta("balance") ?? "0");
  }

  private counter(table: "month_tokens" | "week_used", key: string): number {
    const col = table === "month_tokens" ? "month" : "week";
    const rows = this.sql.exec<{ tokens: number }>(`SELECT tokens FROM ${table} WHERE ${col} = ?`, key);
    return rows.toArray()[0]?.tokens ?? 0;
  }

  private addCounter(table: "month_tokens" | "week_used", key: string, delta: number): void {
    const col = table === "month_tokens" ? "month" : "week";
    this.sql.exec(
      `INSERT INTO ${table} (${col}, tokens) VALUES (?, ?) ON CONFLICT (${col}) DO UPDATE SET tokens = tokens + excluded.tokens`,
      key,
      delta,
    );
  }

  private allowance(): number {
    return Number(this.getMeta("week_allowance_tokens") ?? "0");
  }

  private journal(row: Omit<JournalRow, "seq"> & { month: string; week: string }): void {
    this.sql.exec(
      `INSERT INTO journal (kind, ref, account_id, amount_micro_cents, tokens, allowance_tokens, test, month, week, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.kind,
      row.ref,
      row.account_id,
      row.amount_micro_cents,
      row.tokens,
      row.allowance_tokens,
      row.test,
      row.month,
      row.week,
      row.at,
    );
  }

  private scheduleFlush(): void {
    if (!this.env.DATABASE_URL) return;
    void this.ctx.storage.getAlarm().then((at) => {
      if (at === null) return this.ctx.storage.setAlarm(Date.now() + 50);
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
    const result = this.ctx.storage.transactionSync((): DebitResult => {
      if (this.isSettled(input.request_id)) return { ok: false, superseded: true };
      const balance = this.balanceNow();
      const month = monthOf(now);
      const week = weekOf(now);
      const prior = this.sql
        .exec<{ amount_micro_cents: number; allowance_tokens: number; month: string }>(
          "SELECT amount_micro_cents, allowance_tokens, month FROM journal WHERE kind = 'debit' AND ref = ?",
          input.request_id,
        )
        .toArray()[0];
      if (prior) {
        const tier = input.test ? "test" : tierFor(this.counter("month_tokens", prior.month));
        return {
          ok: true,
          duplicate: true,
          balance_before: balance,
          balance_after: balance,
          tier,
          allowance_tokens: prior.allowance_tokens,
          balance_micro_cents: prior.amount_micro_cents,
        };
      }
      const monthTokens = this.counter("month_tokens", month);
      let allowanceTokens = 0;
      let fromBalance = 0;
      if (!input.test && input.amount_micro_cents > 0) {
        // All or nothing: the week's allowance covers the whole request, or the balance pays all of it.
        const left = Math.max(0, this.allowance() - this.counter("week_used", week));
        if (left >= input.tokens) allowanceTokens = input.tokens;
        else fromBalance = input.amount_micro_cents;
        if (fromBalance > balance) return { ok: false, balance, required: input.amount_micro_cents };
      }
      this.setMeta("balance", String(balance - fromBalance));
      if (this.getMeta("account_id") === undefined) this.setMeta("account_id", input.account_id);
      if (allowanceTokens > 0) this.addCounter("week_used", week, allowanceTokens);
      if (!input.test) this.addCounter("month_tokens", month, input.tokens);
      this.journal({
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
        tier: input.test ? "test" : tierFor(monthTokens),
        allowance_tokens: allowanceTokens,
        balance_micro_cents: fromBalance,
      };
    });
    if (result.ok && !result.duplicate) this.scheduleFlush();
    return result;
  }

  /** Exact inverse of the debit of `request_id` (balance, allowance, month tokens); idempotent. */
  async refund(request_id: string, now: number = Date.now()): Promise<RefundResult> {
    const result = this.ctx.storage.transactionSync(() => this.refundNow(request_id, now));
    if (result.found && !result.duplicate) this.scheduleFlush();
    return result;
  }

  private refundNow(request_id: string, now: number): RefundResult {
    const balance = this.balanceNow();
    const debit = this.sql
      .exec<Omit<JournalRow, "seq"> & { month: string; week: string }>(
        "SELECT * FROM journal WHERE kind = 'debit' AND ref = ?",
        request_id,
      )
      .toArray()[0];
    if (!debit) return { found: false, duplicate: false, balance_after: balance };
    const done = this.sql.exec("SELECT 1 FROM journal WHERE kind = 'refund' AND ref = ?", request_id);
    if (done.toArray().length > 0) return { found: true, duplicate: true, balance_after: balance };
    this.setMeta("balance", String(balance + debit.amount_micro_cents));
    if (debit.allowance_tokens > 0) this.addCounter("week_used", debit.week, -debit.allowance_tokens);
    if (!debit.test) this.addCounter("month_tokens", debit.month, -debit.tokens);
    this.journal({ ...debit, kind: "refund", at: now });
    return { found: true, duplicate: false, balance_after: balance + debit.amount_micro_cents };
  }

  private isSettled(request_id: string): boolean {
    return this.sql.exec("SELECT 1 FROM settled WHERE request_id = ?", request_id).toArray().length > 0;
  }

  /**
   * Keeps a decide call's completion (the original's identifiers and charge, never content) when the
   * idempotency store could not take it, so a retry that takes over the record replays it instead of
   * running and charging again.
   */
  async keepCompletion(request_id: string, result: string, now: number = Date.now()): Promise<void> {
    // A call already settled by a takeover (refunded) keeps nothing: its retry runs, or ran, on its own charge.
    if (this.isSettled(request_id)) return;
    this.sql.exec(
      "INSERT INTO completions (request_id, result, at) VALUES (?, ?, ?) ON CONFLICT (request_id) DO NOTHING",
      request_id,
      result,
      now,
    );
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
    const out = this.ctx.storage.transactionSync(() => {
      let completion: string | null = null;
      const refunded: string[] = [];
      for (const id of owners) {
        this.sql.exec("INSERT INTO settled (request_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING", id, now);
        const kept = this.sql
          .exec<{ result: string }>("SELECT result FROM completions WHERE request_id = ?", id)
          .toArray()[0];
        if (kept && completion === null) {
          completion = kept.result;
          continue;
        }
        const refund = this.refundNow(id, now);
        if (refund.found && !refund.duplicate) refunded.push(id);
      }
      return { completion, refunded };
    });
    if (out.refunded.length > 0) this.scheduleFlush();
    return out;
  }

  /** Adds a settled payment to the balance once per payment id. */
  async credit(input: CreditInput): Promise<CreditResult> {
    if (!Number.isSafeInteger(input.amount_micro_cents) || input.amount_micro_cents <= 0)
      throw new RangeError("amount_micro_cents must be a positive safe integer");
    const now = input.now ?? Date.now();
    const result = this.ctx.storage.transactionSync((): CreditResult => {
      const balance = this.balanceNow();
      const dup = this.sql.exec("SELECT 1 FROM journal WHERE kind = 'credit' AND ref = ?", input.payment_id);
      if (dup.toArray().length > 0) return { duplicate: true, balance_after: balance };
      const after = balance + input.amount_micro_cents;
      if (!Number.isSafeInteger(after)) throw new RangeError("balance would exceed 2^53 micro-cents");
      this.setMeta("balance", String(after));
      if (this.getMeta("account_id") === undefined) this.setMeta("account_id", input.account_id);
      this.journal({
        kind: "credit",
        ref: input.payment_id,
        account_id: input.account_id,
        amount_micro_cents: input.amount_micro_cents,
        tokens: 0,
        allowance_tokens: 0,
        test: 0,
        month: monthOf(now),
        week: weekOf(now),
        at: now,
      });
      return { duplicate: false, balance_after: after };
    });
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
    const result = this.ctx.storage.transactionSync((): ChargebackResult => {
      const balance = this.balanceNow();
      const dup = this.sql.exec(
        "SELECT 1 FROM journal WHERE kind = 'chargeback' AND ref = ?",
        input.event_id,
      );
      if (dup.toArray().length > 0) return { duplicate: true, taken: 0, balance_after: balance };
      const key = `chargeback:${input.payment_id}`;
      const before = Number(this.getMeta(key) ?? "0");
      const taken = Math.max(0, input.target_micro_cents - before);
      const after = balance - taken;
      if (!Number.isSafeInteger(after)) throw new RangeError("balance would pass -2^53 micro-cents");
      this.setMeta("balance", String(after));
      this.setMeta(key, String(before + taken));
      if (this.getMeta("account_id") === undefined) this.setMeta("account_id", input.account_id);
      this.journal({
        kind: "chargeback",
        ref: input.event_id,
        account_id: input.account_id,
        amount_micro_cents: taken,
        tokens: 0,
        allowance_tokens: 0,
        test: 0,
        month: monthOf(now),
        week: weekOf(now),
        at: now,
      });
      return { duplicate: false, taken, balance_after: after };
    });
    if (!result.duplicate) this.scheduleFlush();
    return result;
  }

  /** Sets the plan's tokens per 7-day (ISO) week; 0 removes the plan. Unused tokens do not roll over. */
  async setPlanAllowance(tokens: number): Promise<void> {
    assertAmount(tokens, "tokens");
    this.setMeta("week_allowance_tokens", String(tokens));
  }

  /**
   * Refills the current week's plan allowance at once (a paid reset), once per payment id: the week's used
   * tokens go back to 0. Answers false when that payment was already applied.
   */
  async refillWeekAllowance(payment_id: string, now: number = Date.now()): Promise<boolean> {
    return this.ctx.storage.transactionSync(() => {
      if (this.getMeta(`refill:${payment_id}`) !== undefined) return false;
      this.setMeta(`refill:${payment_id}`, String(now));
      this.sql.exec("DELETE FROM week_used WHERE week = ?", weekOf(now));
      return true;
    });
  }

  async balance(now: number = Date.now()): Promise<BalanceView> {
    const month = monthOf(now);
    const week = weekOf(now);
    const monthTokens = this.counter("month_tokens", month);
    const allowance = this.allowance();
    return {
      balance_micro_cents: this.balanceNow(),
      month,
      month_tokens: monthTokens,
      tier: tierFor(monthTokens),
      next_tier_at_tokens: nextTierAt(monthTokens),
      week,
      week_allowance_tokens: allowance,
      week_allowance_left: Math.max(0, allowance - this.counter("week_used", week)),
    };
  }

  /** Journal rows in order (for reconciliation and tests). */
  async journalRows(): Promise<JournalRow[]> {
    return this.sql
      .exec<JournalRow & Record<string, SqlStorageValue>>(
        "SELECT seq, kind, ref, account_id, amount_micro_cents, tokens, allowance_tokens, test, at FROM journal ORDER BY seq",
      )
      .toArray();
  }

  /** Copies unflushed journal rows to Postgres (idempotent by kind + ref); returns how many were sent. */
  async flush(): Promise<number> {
    if (!this.env.DATABASE_URL) return 0;
    let sent = 0;
    for (;;) {
      const rows = this.sql
        .exec<JournalRow & Record<string, SqlStorageValue>>(
          `SELECT seq, kind, ref, account_id, amount_micro_cents, tokens, allowance_tokens, test, at
           FROM journal WHERE flushed = 0 ORDER BY seq LIMIT ${FLUSH_BATCH}`,
        )
        .toArray();
      if (rows.length === 0) return sent;
      await flushJournal(this.env, rows);
      const last = rows[rows.length - 1]!.seq;
      this.sql.exec("UPDATE journal SET flushed = 1 WHERE flushed = 0 AND seq <= ?", last);
      sent += rows.length;
    }
  }

  /**
   * Applies the refunds the Worker could not deliver (recorded in Postgres when both of its attempts failed),
   * then forgets them; returns how many were applied. Idempotent: `refund` moves a charge back once. The
   * sweep passes the account id, which a ledger whose first debit never landed has not stored.
   */
  async applyRefundIntents(accountId = this.getMeta("account_id")): Promise<number> {
    if (!this.env.DATABASE_URL || accountId === undefined) return 0;
    const ids = await pendingRefundIntents(this.env, accountId);
    for (const id of ids) await this.refund(id);
    await clearRefundIntents(this.env, ids);
    return ids.length;
  }

  override async alarm(): Promise<void> {
    // Kept completions serve retries within the idempotency window only.
    this.sql.exec("DELETE FROM completions WHERE at < ?", Date.now() - COMPLETION_KEEP_MS);
    this.sql.exec("DELETE FROM settled WHERE at < ?", Date.now() - COMPLETION_KEEP_MS);
    try {
      await this.applyRefundIntents();
      await this.flush();
    } catch (err) {
      logEvent("error", "ledger_flush_failed", { retrying: true, error: errorText(err) });
      await this.ctx.storage.setAlarm(Date.now() + FLUSH_RETRY_MS);
    }
  }
}
