import type { PoolClient } from "@neondatabase/serverless";
import type { Database } from "./db";

/** Why a seat is held. */
export type HoldKind = "checkout" | "invitation" | "subscription" | "downgrade";

/** A seat asked for: the catalogue's total (null: no limit) is a parameter, never stored. */
export interface SeatClaim {
  accountId: string;
  planId: string;
  total: number | null;
  kind: Exclude<HoldKind, "subscription">;
  ref: string | null;
  /** Seconds until the hold lapses (checkout 3,600, invitation 259,200); null: until released. */
  ttlSeconds: number | null;
}

/** A claim's outcome: held (new, or the account's own hold renewed), no seat left, or already subscribed. */
export type ClaimOutcome = "held" | "sold_out" | "subscribed";

const LIVE = "(expires_at IS NULL OR expires_at > now())";

/**
 * Locks a plan's seat row for the rest of the transaction. Claims count holders in a LATER statement, so the
 * count sees every hold committed before the lock was granted (one statement that locks and counts oversold
 * on PostgreSQL 15: its snapshot predates the lock wait).
 */
async function lockPlan(client: PoolClient, planId: string): Promise<void> {
  await client.query("INSERT INTO plan_seat_locks (plan_id) VALUES ($1) ON CONFLICT DO NOTHING", [planId]);
  await client.query("SELECT plan_id FROM plan_seat_locks WHERE plan_id = $1 FOR UPDATE", [planId]);
}

/** Live holds of a plan. */
async function liveHolds(client: PoolClient, planId: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM seat_holds WHERE plan_id = $1 AND ${LIVE}`,
    [planId],
  );
  return rows[0]!.n;
}

const expiry = (ttl: number | null) => (ttl === null ? null : String(ttl));

/**
 * Claims a seat inside the caller's transaction, race-free: lock the plan, then count. The account's own
 * hold on the plan (an invitation turning into a checkout, a second checkout) is renewed without a new seat.
 */
export async function claimSeat(client: PoolClient, claim: SeatClaim): Promise<ClaimOutcome> {
  await lockPlan(client, claim.planId);
  const { rows } = await client.query<{ kind: HoldKind; live: boolean }>(
    `SELECT kind, ${LIVE} AS live FROM seat_holds WHERE account_id = $1 AND plan_id = $2`,
    [claim.accountId, claim.planId],
  );
  const own = rows[0];
  if (own?.kind === "subscription") return "subscribed";
  if (!own?.live && claim.total !== null && (await liveHolds(client, claim.planId)) >= claim.total)
    return "sold_out";
  await client.query(
    `INSERT INTO seat_holds (account_id, plan_id, kind, ref, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision))
     ON CONFLICT (account_id, plan_id) DO UPDATE SET kind = EXCLUDED.kind, ref = EXCLUDED.ref,
       expires_at = EXCLUDED.expires_at, created_at = now()`,
    [claim.accountId, claim.planId, claim.kind, claim.ref, expiry(claim.ttlSeconds)],
  );
  return "held";
}

/** A plan checkout's claim on a seat: the hold's lifetime, and how many renewals a hold may have. */
export interface CheckoutClaim {
  accountId: string;
  planId: string;
  total: number | null;
  ttlSeconds: number;
  maxRenewals: number;
}

/** A checkout claim's outcome; the sessions of the holds it replaced (to expire in Stripe) when held. */
export type CheckoutOutcome =
  | { outcome: "held"; replaced: { planId: string; ref: string | null }[] }
  | { outcome: "sold_out" }
  | { outcome: "subscribed" }
  | { outcome: "renewals_exceeded"; expiresInSeconds: number };

/** Accounts waiting for a plan, not yet invited and holding no seat on it, other than `accountId`. */
async function waitersAhead(client: PoolClient, planId: string, accountId: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM waiting_list w WHERE w.plan_id = $1 AND w.invited_at IS NULL AND w.account_id <> $2
       AND NOT EXISTS (SELECT 1 FROM seat_holds h WHERE h.account_id = w.account_id AND h.plan_id = w.plan_id AND ${LIVE})`,
    [planId, accountId],
  );
  return rows[0]!.n;
}

/**
 * Claims a seat for a plan checkout inside the caller's transaction (lock the plan, then count). One checkout
 * hold per account: its live checkout holds on other plans are released (their sessions answered in
 * `replaced`). A new hold is sold out when the live holds and the accounts waiting ahead fill the plan; its
 * own live checkout hold is renewed (a fresh hour) only while the plan has a free seat (the plan list's
 * `available`) and at most `maxRenewals` times; an invitation turns into a checkout without a new seat.
 */
export async function claimCheckoutSeat(client: PoolClient, claim: CheckoutClaim): Promise<CheckoutOutcome> {
  await lockPlan(client, claim.planId);
  const { rows } = await client.query<{
    kind: HoldKind;
    ref: string | null;
    live: boolean;
    renewals: number;
    left: number;
  }>(
    `SELECT kind, ref, ${LIVE} AS live, renewals, ceil(extract(epoch FROM expires_at - now()))::int AS left
     FROM seat_holds WHERE account_id = $1 AND plan_id = $2`,
    [claim.accountId, claim.planId],
  );
  const own = rows[0]?.live ? rows[0] : undefined;
  if (rows[0]?.kind === "subscription") return { outcome: "subscribed" };
  const renewing = own?.kind === "checkout";
  if (renewing && own.renewals >= claim.maxRenewals)
    return { outcome: "renewals_exceeded", expiresInSeconds: Math.max(1, own.left) };
  if (claim.total !== null && own?.kind !== "invitation") {
    const taken = await liveHolds(client, claim.planId);
    const full = renewing
      ? taken >= claim.total
      : taken + (await waitersAhead(client, claim.planId, claim.accountId)) >= claim.total;
    if (full) return { outcome: "sold_out" };
  }
  const released = await client.query<{ plan_id: string; ref: string | null }>(
    `DELETE FROM seat_holds WHERE account_id = $1 AND plan_id <> $2 AND kind = 'checkout' AND ${LIVE}
     RETURNING plan_id, ref`,
    [claim.accountId, claim.planId],
  );
  await client.query(
    `INSERT INTO seat_holds (account_id, plan_id, kind, ref, expires_at, renewals)
     VALUES ($1, $2, 'checkout', NULL, now() + make_interval(secs => $3::double precision), 0)
     ON CONFLICT (account_id, plan_id) DO UPDATE SET kind = 'checkout', ref = NULL,
       expires_at = EXCLUDED.expires_at, created_at = now(),
       renewals = CASE WHEN $4::boolean THEN seat_holds.renewals + 1 ELSE 0 END`,
    [claim.accountId, claim.planId, String(claim.ttlSeconds), renewing],
  );
  const replaced = released.rows.map((r) => ({ planId: r.plan_id, ref: r.ref }));
  if (renewing) replaced.push({ planId: claim.planId, ref: own.ref });
  return { outcome: "held", replaced };
}

/**
 * A subscription holds the account's seat on its plan (from its checkout's hold, or forced when Stripe
 * started it anyway): the account's subscription hold on any other plan is released (an upgrade or a
 * downgrade moves the seat). Answers the plans whose seat was freed.
 */
export async function holdForSubscription(
  client: PoolClient,
  hold: { accountId: string; planId: string; subscriptionId: string },
): Promise<string[]> {
  await lockPlan(client, hold.planId);
  const { rows } = await client.query<{ plan_id: string }>(
    "DELETE FROM seat_holds WHERE account_id = $1 AND plan_id <> $2 AND kind = 'subscription' RETURNING plan_id",
    [hold.accountId, hold.planId],
  );
  await client.query(
    `INSERT INTO seat_holds (account_id, plan_id, kind, ref, expires_at) VALUES ($1, $2, 'subscription', $3, NULL)
     ON CONFLICT (account_id, plan_id) DO UPDATE SET kind = 'subscription', ref = EXCLUDED.ref, expires_at = NULL`,
    [hold.accountId, hold.planId, hold.subscriptionId],
  );
  return rows.map((r) => r.plan_id);
}

/** Releases the account's hold on a plan when it is of one of `kinds` (and, if given, for `ref`). */
export async function releaseSeat(
  client: PoolClient,
  hold: { accountId: string; planId: string; kinds: readonly HoldKind[]; ref?: string },
): Promise<boolean> {
  const { rows } = await client.query(
    `DELETE FROM seat_holds WHERE account_id = $1 AND plan_id = $2 AND kind = ANY($3)
       AND ($4::text IS NULL OR ref = $4) RETURNING plan_id`,
    [hold.accountId, hold.planId, hold.kinds, hold.ref ?? null],
  );
  return rows.length > 0;
}

/** Seats taken per plan right now (live holds of every kind). */
export async function seatsTaken(db: Database): Promise<Record<string, number>> {
  const rows = (await db
    .sql()
    .query(`SELECT plan_id, count(*)::int AS n FROM seat_holds WHERE ${LIVE} GROUP BY plan_id`)) as {
    plan_id: string;
    n: number;
  }[];
  return Object.fromEntries(rows.map((r) => [r.plan_id, r.n]));
}

/** Hours a waiting-list invitation holds its seat. */
export const INVITATION_TTL_SECONDS = 72 * 3_600;

/**
 * Invites the first waiting account of a plan that holds no seat on it, if a seat is free (same lock, then
 * count): it gets an `invitation` hold for 72 hours. Answers the invited account, or null.
 */
export async function inviteNext(
  client: PoolClient,
  planId: string,
  total: number | null,
): Promise<string | null> {
  await lockPlan(client, planId);
  if (total !== null && (await liveHolds(client, planId)) >= total) return null;
  const { rows } = await client.query<{ account_id: string }>(
    `SELECT w.account_id FROM waiting_list w WHERE w.plan_id = $1 AND w.invited_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM seat_holds h WHERE h.account_id = w.account_id AND h.plan_id = w.plan_id AND ${LIVE})
     ORDER BY w.joined_at, w.account_id LIMIT 1`,
    [planId],
  );
  const next = rows[0]?.account_id;
  if (!next) return null;
  await client.query(
    `INSERT INTO seat_holds (account_id, plan_id, kind, ref, expires_at)
     VALUES ($1, $2, 'invitation', NULL, now() + make_interval(secs => $3::double precision))
     ON CONFLICT (account_id, plan_id) DO UPDATE SET kind = 'invitation', expires_at = EXCLUDED.expires_at`,
    [next, planId, String(INVITATION_TTL_SECONDS)],
  );
  await client.query("UPDATE waiting_list SET invited_at = now() WHERE account_id = $1 AND plan_id = $2", [
    next,
    planId,
  ]);
  return next;
}

/** Names the Checkout Session an account's checkout hold on a plan is for (its expiry then frees only it). */
export async function tagCheckoutHold(
  db: Database,
  accountId: string,
  planId: string,
  sessionId: string,
): Promise<void> {
  await db
    .sql()
    .query("UPDATE seat_holds SET ref = $3 WHERE account_id = $1 AND plan_id = $2 AND kind = 'checkout'", [
      accountId,
      planId,
      sessionId,
    ]);
}
