import type { Env } from "../env";
import type { JournalRow } from "../ledger/types";
import { getSql } from "./db";

/**
 * Copies ledger journal rows to Postgres `ledger_journal`; a row already there (same account, kind and ref) is left
 * alone, so a re-sent batch never doubles a charge.
 */
export async function flushJournal(env: Env, rows: readonly JournalRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sql = getSql(env);
  const params: unknown[] = [];
  const values = rows.map((r, i) => {
    const b = i * 8;
    params.push(
      r.kind,
      r.ref,
      r.account_id,
      r.amount_micro_cents,
      r.tokens,
      r.allowance_tokens,
      r.test === 1,
    );
    params.push(new Date(r.at).toISOString());
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8})`;
  });
  await sql.query(
    `INSERT INTO ledger_journal (kind, ref, account_id, amount_micro_cents, tokens, allowance_tokens, test, at)
     VALUES ${values.join(", ")} ON CONFLICT (account_id, kind, ref) DO NOTHING`,
    params,
  );
}

/** Postgres view of an account's balance from the journal (credits − debits + refunds − chargebacks), for reconciliation. */
export async function journalBalance(env: Env, accountId: string): Promise<number> {
  const sql = getSql(env);
  const rows = (await sql.query(
    `SELECT COALESCE(SUM(CASE WHEN kind IN ('debit', 'chargeback') THEN -amount_micro_cents ELSE amount_micro_cents END), 0)::text AS b
     FROM ledger_journal WHERE account_id = $1`,
    [accountId],
  )) as Array<{ b: string }>;
  return Number(rows[0]?.b ?? "0");
}
