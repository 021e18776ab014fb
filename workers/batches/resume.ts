import { kickRunner } from "../clients/runner";
import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";
import { resumeBalancePaused } from "../stores/batch-runs";
import type { Database } from "../stores/db";

/**
 * A credit landed on the account: its batches paused for their balance are due at once and its runner is kicked
 * (without this they would try again within a minute anyway). Never fails the credit that called it.
 */
export async function resumeAfterCredit(
  env: Pick<Env, "EVALUATIONS">,
  db: Database,
  accountId: string,
): Promise<void> {
  try {
    if ((await resumeBalancePaused(db, accountId)) > 0) await kickRunner(env, accountId);
  } catch (err) {
    logEvent("warn", "batch_resume_failed", { account_id: accountId, error: errorText(err) });
  }
}
