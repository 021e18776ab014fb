import type { Env } from "../env";
import type { Ledger } from "../ledger/stub";
import { errorText, logEvent } from "../observability/log";
import { accountsWithStaleIntents } from "../stores/refund-intents";

/** Intents younger than this are left to the request path and the ledger's own alarm. */
const MIN_AGE_SECONDS = 60;
const ACCOUNTS_PER_RUN = 100;

/**
 * Cron sweep (wrangler `[triggers]`): asks every account's ledger that still owes a refund recorded in
 * `ledger_refund_intents` for over a minute to apply it, so an account that never writes again is refunded
 * too. Returns the number of intents applied.
 */
export async function sweepRefundIntents(env: Env, ledger: (accountId: string) => Ledger): Promise<number> {
  if (!env.DATABASE_URL) return 0;
  let applied = 0;
  for (const accountId of await accountsWithStaleIntents(env, MIN_AGE_SECONDS, ACCOUNTS_PER_RUN)) {
    try {
      applied += await ledger(accountId).applyRefundIntents(accountId);
    } catch (err) {
      logEvent("error", "refund_sweep_failed", { account_id: accountId, error: errorText(err) });
    }
  }
  return applied;
}
