import type { Database } from "./db";

/** A subscription as the webhooks last reported it. */
export interface SubscriptionRecord {
  id: string;
  account_id: string;
  plan_id: string;
  status: string;
}

/**
 * Records Stripe's latest view of a subscription; a `canceled` subscription stays canceled (a late
 * `updated` event delivered after `deleted` changes nothing). Answers whether the row was written.
 */
export async function recordSubscription(db: Database, sub: SubscriptionRecord): Promise<boolean> {
  const rows = await db.sql().query(
    `INSERT INTO subscriptions (id, account_id, plan_id, status) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET plan_id = EXCLUDED.plan_id, status = EXCLUDED.status, updated_at = now()
       WHERE subscriptions.status <> 'canceled'
     RETURNING id`,
    [sub.id, sub.account_id, sub.plan_id, sub.status],
  );
  return rows.length > 0;
}

/** The account's subscription that grants an allowance now (active, past_due, trialing), if any. */
export async function currentSubscription(
  db: Database,
  accountId: string,
): Promise<SubscriptionRecord | undefined> {
  const rows = (await db.sql().query(
    `SELECT id, account_id, plan_id, status FROM subscriptions
     WHERE account_id = $1 AND status IN ('active', 'past_due', 'trialing') ORDER BY updated_at DESC LIMIT 1`,
    [accountId],
  )) as SubscriptionRecord[];
  return rows[0];
}
