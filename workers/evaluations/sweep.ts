import { kickRunner } from "../clients/runner";
import type { Env } from "../env";
import { logEvent } from "../observability/log";
import { database } from "../stores/db";
import { accountsWithActiveEvaluations } from "../stores/evaluation-runs";
import { deleteExpiredEvaluations } from "../stores/evaluations";

/**
 * The cron's part for evaluations: delete those past their 30 days (items and answers with them), and kick the
 * runner of every account with one still to run — the safety net when a runner's alarm was lost.
 */
export async function sweepEvaluations(env: Env): Promise<void> {
  const db = database(env);
  try {
    const deleted = await deleteExpiredEvaluations(db);
    if (deleted > 0) logEvent("info", "evaluations_deleted", { deleted });
    for (const accountId of await accountsWithActiveEvaluations(db)) await kickRunner(env, accountId);
  } catch (err) {
    logEvent("error", "evaluation_sweep_failed", { error: err instanceof Error ? err.name : String(err) });
  }
}
