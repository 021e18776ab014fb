import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";

/** The runner of an account. */
export function evaluationRunner(env: Pick<Env, "EVALUATIONS">, accountId: string) {
  return env.EVALUATIONS.get(env.EVALUATIONS.idFromName(accountId));
}

/** Kicks an account's runner; a failure is logged (the cron tick and reads of a stalled run kick again). */
export async function kickRunner(env: Pick<Env, "EVALUATIONS">, accountId: string): Promise<void> {
  try {
    await evaluationRunner(env, accountId).kick(accountId);
  } catch (err) {
    logEvent("error", "evaluation_runner_not_kicked", { account_id: accountId, error: errorText(err) });
  }
}
