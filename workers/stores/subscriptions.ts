import type { Database } from "./db";

/** A subscription as the webhooks last reported it. */
export interface SubscriptionRecord {
  id: string;
  account_id: string;
  plan_id: string;
  status: string;
  /** End of the current period (unix seconds from Stripe on write; the driver's date on read). */
  current_period_end?: number | string | Date | null;
  /** When Stripe created it (unix seconds on write). */
  started_at?: number | null;
}

/**
 * Records Stripe's latest view of a subscription; a `canceled` subscription stays canceled (a late
 * `updated` event delivered after `deleted` changes nothing). Answers whether the row was written.
 */
export async function recordSubscription(db: Database, sub: SubscriptionRecord): Promise<boolean> {
  const rows = await db.sql().query(
    `INSERT INTO subscriptions (id, account_id, plan_id, status, current_period_end, started_at)
     VALUES ($1, $2, $3, $4, to_timestamp($5::double precision), to_timestamp($6::double precision))
     ON CONFLICT (id) DO UPDATE SET plan_id = EXCLUDED.plan_id, status = EXCLUDED.status,
       current_period_end = COALESCE(EXCLUDED.current_period_end, subscriptions.current_period_end),
       started_at = COALESCE(subscriptions.started_at, EXCLUDED.started_at),
       updated_at = now()
       WHERE subscriptions.status <> 'canceled'
     RETURNING id`,
    [
      sub.id,
      sub.account_id,
      sub.plan_id,
      sub.status,
      typeof sub.current_period_end === "number" ? String(sub.current_period_end) : null,
      typeof sub.started_at === "number" ? String(sub.started_at) : null,
    ],
  );
  return rows.length > 0;
}

/** The account's subscription that grants an allowance now (active, past_due, trialing), if any. */
export async function currentSubscription(
  db: Database,
  accountId: string,
): Promise<SubscriptionRecord | undefined> {
  const rows = (await db.sql().query(
    `SELECT id, account_id, plan_id, status, current_period_end FROM subscriptions
     WHERE account_id = $1 AND status IN ('active', 'past_due', 'trialing') ORDER BY updated_at DESC LIMIT 1`,
    [accountId],
  )) as SubscriptionRecord[];
  return rows[0];
}

/**
 * The account's other subscriptions that hold a seat by the last word of the webhooks, and whether each
 * started after `startedAt` (unix seconds; a row without a start counts as older; the same second is
 * decided by id, so of any two exactly one is newer).
 */
export async function otherLiveSubscriptions(
  db: Database,
  accountId: string,
  exceptId: string,
  startedAt: number,
): Promise<{ id: string; newer: boolean }[]> {
  return (await db.sql().query(
    `SELECT id, COALESCE((started_at, id) > (to_timestamp($3::double precision), $2), false) AS newer
     FROM subscriptions
     WHERE account_id = $1 AND id <> $2 AND status IN ('active', 'past_due', 'incomplete', 'trialing')`,
    [accountId, exceptId, String(startedAt)],
  )) as { id: string; newer: boolean }[];
}
