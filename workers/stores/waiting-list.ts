import type { Database } from "./db";

/** An account's place on a plan's waiting list. */
export interface WaitingListEntry {
  joined_at: Date;
  /** 1 = next to be invited (among those not yet invited). */
  position: number;
  invited_at: Date | null;
}

/** Puts the account on the plan's waiting list (once; joining again keeps its place). */
export async function joinWaitingList(
  db: Database,
  accountId: string,
  planId: string,
): Promise<WaitingListEntry> {
  const rows = (await db.sql().transaction((sql) => [
    sql`INSERT INTO waiting_list (account_id, plan_id) VALUES (${accountId}, ${planId}) ON CONFLICT DO NOTHING`,
    sql`SELECT w.joined_at, w.invited_at,
          (SELECT count(*)::int FROM waiting_list o WHERE o.plan_id = w.plan_id AND o.invited_at IS NULL
             AND (o.joined_at, o.account_id) <= (w.joined_at, w.account_id)) AS position
        FROM waiting_list w WHERE w.account_id = ${accountId} AND w.plan_id = ${planId}`,
  ])) as unknown as [unknown, WaitingListEntry[]];
  return rows[1][0]!;
}
