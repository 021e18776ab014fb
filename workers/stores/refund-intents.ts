import type { Env } from "../env";
import { getSql } from "./db";

/** Records that `requestId`'s charge must be refunded by `accountId`'s ledger (idempotent). */
export async function recordRefundIntent(env: Env, accountId: string, requestId: string): Promise<void> {
  await getSql(env).query(
    "INSERT INTO ledger_refund_intents (request_id, account_id) VALUES ($1, $2) ON CONFLICT (request_id) DO NOTHING",
    [requestId, accountId],
  );
}

/** Request ids whose refund `accountId`'s ledger still owes, oldest first. */
export async function pendingRefundIntents(env: Env, accountId: string): Promise<string[]> {
  const rows = (await getSql(env).query(
    "SELECT request_id FROM ledger_refund_intents WHERE account_id = $1 ORDER BY created_at, request_id",
    [accountId],
  )) as { request_id: string }[];
  return rows.map((r) => r.request_id);
}

/** Forgets intents the ledger has applied. */
export async function clearRefundIntents(env: Env, requestIds: readonly string[]): Promise<void> {
  if (requestIds.length === 0) return;
  await getSql(env).query("DELETE FROM ledger_refund_intents WHERE request_id = ANY($1)", [requestIds]);
}

/** Refunds the ledger could not take, kept in Postgres for its next alarm (see billing/charge.ts). */
export interface RefundIntentLog {
  record(accountId: string, requestId: string): Promise<void>;
}

/** The refund-intent log of an env. */
export function refundIntentLog(env: Env): RefundIntentLog {
  return { record: (accountId, requestId) => recordRefundIntent(env, accountId, requestId) };
}

/** Accounts with an intent older than `minAgeSeconds`, at most `limit` of them. */
export async function accountsWithStaleIntents(
  env: Env,
  minAgeSeconds: number,
  limit: number,
): Promise<string[]> {
  const rows = (await getSql(env).query(
    `SELECT DISTINCT account_id FROM ledger_refund_intents
     WHERE created_at < now() - make_interval(secs => $1) ORDER BY account_id LIMIT $2`,
    [minAgeSeconds, limit],
  )) as { account_id: string }[];
  return rows.map((r) => r.account_id);
}
