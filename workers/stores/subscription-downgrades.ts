import type { PoolClient } from "@neondatabase/serverless";
import type { Database } from "./db";
import { claimSeat } from "./seats";

/** A scheduled downgrade as stored (dates as the driver returns them). */
export interface DowngradeRecord {
  id: string;
  account_id: string;
  subscription_id: string;
  from_plan_id: string;
  plan_id: string;
  status: "pending" | "scheduled" | "completed" | "canceled";
  schedule_id: string | null;
  effective_at: string | Date | null;
}

/** What reserving a downgrade found: reserved with its seat, no seat left, or one already in flight. */
export type ReserveOutcome =
  | { outcome: "held" }
  | { outcome: "sold_out" }
  | { outcome: "exists"; existing: DowngradeRecord };

const COLUMNS = "id, account_id, subscription_id, from_plan_id, plan_id, status, schedule_id, effective_at";

/**
 * Inside the caller's transaction: records a `pending` downgrade (one in flight per account; a second
 * answers the first) and claims a `downgrade` seat on the cheaper plan race-free (lock the plan, then count).
 * No seat left → the row is removed again and `sold_out` answered.
 */
export async function reserveDowngrade(
  client: PoolClient,
  d: { id: string; accountId: string; subscriptionId: string; fromPlanId: string; planId: string },
  total: number | null,
): Promise<ReserveOutcome> {
  const { rows } = await client.query(
    `INSERT INTO subscription_downgrades (id, account_id, subscription_id, from_plan_id, plan_id, status)
     VALUES ($1, $2, $3, $4, $5, 'pending')
     ON CONFLICT (account_id) WHERE status IN ('pending', 'scheduled') DO NOTHING RETURNING id`,
    [d.id, d.accountId, d.subscriptionId, d.fromPlanId, d.planId],
  );
  if (rows.length === 0) {
    const existing = await client.query<DowngradeRecord>(
      `SELECT ${COLUMNS} FROM subscription_downgrades WHERE account_id = $1 AND status IN ('pending', 'scheduled')`,
      [d.accountId],
    );
    return { outcome: "exists", existing: existing.rows[0]! };
  }
  const claimed = await claimSeat(client, {
    accountId: d.accountId,
    planId: d.planId,
    total,
    kind: "downgrade",
    ref: d.id,
    ttlSeconds: null,
  });
  if (claimed === "held") return { outcome: "held" };
  await client.query("DELETE FROM subscription_downgrades WHERE id = $1", [d.id]);
  return { outcome: "sold_out" };
}

/** Stripe accepted the schedule: the downgrade is `scheduled` for `effectiveAt` (unix seconds). */
export async function markScheduled(
  db: Database,
  id: string,
  scheduleId: string,
  effectiveAt: number,
): Promise<void> {
  await db.sql().query(
    `UPDATE subscription_downgrades SET status = 'scheduled', schedule_id = $2,
       effective_at = to_timestamp($3::double precision), updated_at = now() WHERE id = $1`,
    [id, scheduleId, String(effectiveAt)],
  );
}

/** The account's downgrade in flight (`pending` or `scheduled`), if any. */
export async function liveDowngrade(db: Database, accountId: string): Promise<DowngradeRecord | undefined> {
  const rows = (await db
    .sql()
    .query(
      `SELECT ${COLUMNS} FROM subscription_downgrades WHERE account_id = $1 AND status IN ('pending', 'scheduled')`,
      [accountId],
    )) as DowngradeRecord[];
  return rows[0];
}

/** A downgrade by id, whatever its status. */
export async function findDowngrade(db: Database, id: string): Promise<DowngradeRecord | undefined> {
  const rows = (await db
    .sql()
    .query(`SELECT ${COLUMNS} FROM subscription_downgrades WHERE id = $1`, [id])) as DowngradeRecord[];
  return rows[0];
}

/**
 * Ends a downgrade still in flight as `completed` or `canceled`; answers the row when this call ended it
 * (a second call, or one after the other outcome, answers undefined).
 */
export async function finishDowngrade(
  db: Database,
  id: string,
  status: "completed" | "canceled",
): Promise<DowngradeRecord | undefined> {
  const rows = (await db.sql().query(
    `UPDATE subscription_downgrades SET status = $2, updated_at = now()
     WHERE id = $1 AND status IN ('pending', 'scheduled') RETURNING ${COLUMNS}`,
    [id, status],
  )) as DowngradeRecord[];
  return rows[0];
}

/** The subscription now carries `planId`: its downgrade to that plan in flight, if any, is `completed`. */
export async function completeDowngradeTo(
  db: Database,
  subscriptionId: string,
  planId: string,
): Promise<DowngradeRecord | undefined> {
  const rows = (await db.sql().query(
    `UPDATE subscription_downgrades SET status = 'completed', updated_at = now()
     WHERE subscription_id = $1 AND plan_id = $2 AND status IN ('pending', 'scheduled') RETURNING ${COLUMNS}`,
    [subscriptionId, planId],
  )) as DowngradeRecord[];
  return rows[0];
}
