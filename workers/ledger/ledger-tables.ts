import type { JournalRow } from "./types";

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

/** A journal row as the ledger keeps it: with the month and the week it counted in. */
export type JournalEntry = Omit<JournalRow, "seq"> & { month: string; week: string };

/** Which token counter: billable tokens per month (the tier), or plan allowance used per week. */
export type Counter = "month_tokens" | "week_used";

/**
 * The ledger's SQLite tables and every statement on them: the meta values (balance, plan allowance, account id,
 * chargebacks and refills per payment), the month and week counters, the journal, the kept completions and the
 * settled request ids. Synchronous, so a caller's steps inside `transactionSync` stay one atomic step.
 */
export class LedgerTables {
  constructor(private readonly sql: SqlStorage) {
    this.sql.exec(SCHEMA);
  }

  /** A meta value (undefined: never set). */
  getMeta(k: string): string | undefined {
    const rows = this.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", k).toArray();
    return rows[0]?.v;
  }

  /** Sets a meta value. */
  setMeta(k: string, v: string): void {
    this.sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", k, v);
  }

  /** The balance in micro-cents (0 before the first move). */
  balanceNow(): number {
    return Number(this.getMeta("balance") ?? "0");
  }

  /** Sets the balance in micro-cents. */
  setBalance(microCents: number): void {
    this.setMeta("balance", String(microCents));
  }

  /** Remembers the account id at the ledger's first move (the refund-intent sweep reads it). */
  noteAccount(accountId: string): void {
    if (this.getMeta("account_id") === undefined) this.setMeta("account_id", accountId);
  }

  /** The plan's tokens per week (0: no plan). */
  allowance(): number {
    return Number(this.getMeta("week_allowance_tokens") ?? "0");
  }

  /** A counter's tokens for one month or week. */
  counter(table: Counter, key: string): number {
    const col = table === "month_tokens" ? "month" : "week";
    const rows = this.sql.exec<{ tokens: number }>(`SELECT tokens FROM ${table} WHERE ${col} = ?`, key);
    return rows.toArray()[0]?.tokens ?? 0;
  }

  /** Adds `delta` (may be negative) to a counter's tokens for one month or week. */
  addCounter(table: Counter, key: string, delta: number): void {
    const col = table === "month_tokens" ? "month" : "week";
    this.sql.exec(
      `INSERT INTO ${table} (${col}, tokens) VALUES (?, ?) ON CONFLICT (${col}) DO UPDATE SET tokens = tokens + excluded.tokens`,
      key,
      delta,
    );
  }

  /** Forgets a week's used allowance (a paid refill). */
  clearWeek(week: string): void {
    this.sql.exec("DELETE FROM week_used WHERE week = ?", week);
  }

  /** Appends a journal row (the UNIQUE (kind, ref) makes each move land once). */
  journal(row: JournalEntry): void {
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

  /** Whether the journal holds a move of `kind` for `ref`. */
  hasJournal(kind: JournalRow["kind"], ref: string): boolean {
    return this.sql.exec("SELECT 1 FROM journal WHERE kind = ? AND ref = ?", kind, ref).toArray().length > 0;
  }

  /** The debit of a request id (undefined: none). */
  debitOf(requestId: string): JournalEntry | undefined {
    return this.sql
      .exec<JournalEntry>("SELECT * FROM journal WHERE kind = 'debit' AND ref = ?", requestId)
      .toArray()[0];
  }

  /** Whether a takeover settled this request id. */
  isSettled(requestId: string): boolean {
    return this.sql.exec("SELECT 1 FROM settled WHERE request_id = ?", requestId).toArray().length > 0;
  }

  /** Marks a request id settled (once). */
  settle(requestId: string, at: number): void {
    this.sql.exec("INSERT INTO settled (request_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING", requestId, at);
  }

  /** Keeps a call's completion (the first one kept stays). */
  keepCompletion(requestId: string, result: string, at: number): void {
    this.sql.exec(
      "INSERT INTO completions (request_id, result, at) VALUES (?, ?, ?) ON CONFLICT (request_id) DO NOTHING",
      requestId,
      result,
      at,
    );
  }

  /** A request id's kept completion (undefined: none). */
  completionOf(requestId: string): string | undefined {
    return this.sql
      .exec<{ result: string }>("SELECT result FROM completions WHERE request_id = ?", requestId)
      .toArray()[0]?.result;
  }

  /** Forgets completions and settled ids kept since before `before` (ms since epoch). */
  prune(before: number): void {
    this.sql.exec("DELETE FROM completions WHERE at < ?", before);
    this.sql.exec("DELETE FROM settled WHERE at < ?", before);
  }

  /** Every journal row in order. */
  journalRows(): JournalRow[] {
    return this.sql
      .exec<JournalRow & Record<string, SqlStorageValue>>(
        "SELECT seq, kind, ref, account_id, amount_micro_cents, tokens, allowance_tokens, test, at FROM journal ORDER BY seq",
      )
      .toArray();
  }

  /** Up to `limit` journal rows not yet copied to Postgres, in order. */
  unflushed(limit: number): JournalRow[] {
    return this.sql
      .exec<JournalRow & Record<string, SqlStorageValue>>(
        `SELECT seq, kind, ref, account_id, amount_micro_cents, tokens, allowance_tokens, test, at
           FROM journal WHERE flushed = 0 ORDER BY seq LIMIT ${limit}`,
      )
      .toArray();
  }

  /** The rows up to `seq` are in Postgres. */
  markFlushed(seq: number): void {
    this.sql.exec("UPDATE journal SET flushed = 1 WHERE flushed = 0 AND seq <= ?", seq);
  }
}
