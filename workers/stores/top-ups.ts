import type { PoolClient } from "@neondatabase/serverless";
import type { Currency } from "../../schema/currencies";
import type { Database } from "./db";

/** A top-up's status: `pending` until Stripe answered, `open` until paid or expired. */
export type TopUpStatus = "pending" | "open" | "processing" | "paid" | "expired" | "failed";

/** A top-up checkout as stored. */
export interface TopUpRow {
  id: string;
  account_id: string;
  credit_cents: number;
  currency: Currency;
  price_minor: number;
  status: TopUpStatus;
  checkout_session_id: string | null;
  url: string | null;
  request_sha256: string | null;
  expires_at: Date;
}

const COLUMNS =
  "id, account_id, credit_cents, currency, price_minor, status, checkout_session_id, url, request_sha256, expires_at";

/** The account row a top-up reads under its lock. */
export interface BillingAccount {
  created_at: Date;
  billing_currency: Currency | null;
}

/** Statements of one account's top-up transaction, run while the account row is locked. */
export interface TopUpTx {
  readonly account: BillingAccount;
  byIdempotencyKey(keySha256: string): Promise<TopUpRow | undefined>;
  /** Cents that count against the new-account cap now: paid, processing, and unexpired pending/open. */
  countedCents(): Promise<number>;
  insert(
    row: Omit<TopUpRow, "checkout_session_id" | "url" | "status">,
    extra: TopUpInsertExtra,
  ): Promise<void>;
}

/** Columns of a new top-up beyond its row. */
export interface TopUpInsertExtra {
  idempotency_key_sha256: string | null;
  return_path: string | null;
}

function topUpTx(client: PoolClient, accountId: string, account: BillingAccount): TopUpTx {
  return {
    account,
    byIdempotencyKey: async (keySha256) =>
      (
        await client.query<TopUpRow>(
          `SELECT ${COLUMNS} FROM top_ups WHERE account_id = $1 AND idempotency_key_sha256 = $2`,
          [accountId, keySha256],
        )
      ).rows[0],
    countedCents: async () => {
      // A separate statement after the lock, so it sees every top-up committed before the lock was granted.
      const { rows } = await client.query<{ cents: number }>(
        `SELECT COALESCE(sum(credit_cents), 0)::int AS cents FROM top_ups WHERE account_id = $1
           AND (status IN ('paid', 'processing') OR (status IN ('pending', 'open') AND expires_at > now()))`,
        [accountId],
      );
      return rows[0]!.cents;
    },
    insert: async (row, extra) => {
      await client.query(
        `INSERT INTO top_ups (id, account_id, credit_cents, currency, price_minor, status, request_sha256,
           expires_at, idempotency_key_sha256, return_path)
         VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9)`,
        [
          row.id,
          row.account_id,
          row.credit_cents,
          row.currency,
          row.price_minor,
          row.request_sha256,
          row.expires_at.toISOString(),
          extra.idempotency_key_sha256,
          extra.return_path,
        ],
      );
    },
  };
}

/**
 * Runs `fn` in one transaction holding the account row's lock (`SELECT … FOR UPDATE`), so two top-ups of
 * the same account are decided one after the other. Undefined when the account does not exist.
 */
export async function withAccountTopUps<T>(
  db: Database,
  accountId: string,
  fn: (tx: TopUpTx) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction(async (client) => {
    const { rows } = await client.query<BillingAccount>(
      "SELECT created_at, billing_currency FROM accounts WHERE id = $1 FOR UPDATE",
      [accountId],
    );
    if (!rows[0]) return undefined;
    return fn(topUpTx(client, accountId, rows[0]));
  });
}

/** Records Stripe's session on a pending top-up (it is `open` from now on). */
export async function openTopUp(
  db: Database,
  id: string,
  session: { id: string; url: string; expires_at: Date },
): Promise<void> {
  await db
    .sql()
    .query(
      "UPDATE top_ups SET status = 'open', checkout_session_id = $2, url = $3, expires_at = $4 WHERE id = $1",
      [id, session.id, session.url, session.expires_at.toISOString()],
    );
}

/** A top-up by its id. */
export async function topUpById(db: Database, id: string): Promise<TopUpRow | undefined> {
  const rows = (await db.sql().query(`SELECT ${COLUMNS} FROM top_ups WHERE id = $1`, [id])) as TopUpRow[];
  return rows[0];
}

/**
 * Moves a top-up to `to` when it is in one of `from`; answers whether it moved. `paid` also stamps
 * `settled_at`. Never moves a `paid` top-up (callers never list it in `from`).
 */
export async function moveTopUp(
  db: Database,
  id: string,
  from: readonly TopUpStatus[],
  to: TopUpStatus,
): Promise<boolean> {
  const rows = await db.sql().query(
    `UPDATE top_ups SET status = $2, settled_at = CASE WHEN $2 = 'paid' THEN now() ELSE settled_at END
     WHERE id = $1 AND status = ANY($3) RETURNING id`,
    [id, to, from],
  );
  return rows.length > 0;
}

/** Fixes the account's billing currency at its first settled payment (later payments change nothing). */
export async function fixBillingCurrency(db: Database, accountId: string, currency: Currency): Promise<void> {
  await db
    .sql()
    .query("UPDATE accounts SET billing_currency = $2 WHERE id = $1 AND billing_currency IS NULL", [
      accountId,
      currency,
    ]);
}

/** The account's billing currency (null: not yet fixed). */
export async function billingCurrency(db: Database, accountId: string): Promise<Currency | null> {
  const rows = (await db
    .sql()
    .query("SELECT billing_currency FROM accounts WHERE id = $1", [accountId])) as BillingAccount[];
  return rows[0]?.billing_currency ?? null;
}

/** Records the payment intent that paid a top-up (a dispute or refund names it). */
export async function recordPaymentIntent(db: Database, id: string, paymentIntentId: string): Promise<void> {
  await db
    .sql()
    .query("UPDATE top_ups SET payment_intent_id = $2 WHERE id = $1 AND payment_intent_id IS NULL", [
      id,
      paymentIntentId,
    ]);
}

/** The top-up a payment intent paid. */
export async function topUpByPaymentIntent(
  db: Database,
  paymentIntentId: string,
): Promise<TopUpRow | undefined> {
  const rows = (await db
    .sql()
    .query(`SELECT ${COLUMNS} FROM top_ups WHERE payment_intent_id = $1`, [paymentIntentId])) as TopUpRow[];
  return rows[0];
}

/** Drops a top-up Stripe never opened (frees its amount and its idempotency key). */
export async function deletePendingTopUp(db: Database, id: string): Promise<void> {
  await db.sql().query("DELETE FROM top_ups WHERE id = $1 AND status = 'pending'", [id]);
}
