import type { Env } from "../env";
import { getSql } from "../stores/db";

/** Intents younger than this are left to the request path and the ledger's own alarm. */
const MIN_AGE_SECONDS = 60;
const ACCOUNTS_PER_RUN = 100;

/**
 * Cron sweep (wrangler `[triggers]`): asks every account's ledger that still owes a refund recorded in
 * `ledger_refund_intents` for over a minute to apply it, so an account that never writes again is refunded
 * too. Returns the number of intents applied.
 */
export async function sweepRefundIntents(env: Env): Promise<number> {
  if (!env.DATABASE_URL) return 0;
  const rows = (await getSql(env).query(
    `SELECT DISTINCT account_id FROM ledger_refund_intents
     WHERE created_at < now() - make_interval(secs => $1) ORDER BY account_id LIMIT $2`,
    [MIN_AGE_SECONDS, ACCOUNTS_PER_RUN],
  )) as { account_id: string }[];
  let applied = 0;
  for (const { account_id } of rows) {
    try {
      applied += await env.LEDGER.get(env.LEDGER.idFromName(account_id)).applyRefundIntents(account_id);
    } catch (err) {
      console.error(
        `refund sweep failed account_id=${account_id}: ${err instanceof Error ? err.message : err}`,
      );
    }
  }
  return applied;
}
