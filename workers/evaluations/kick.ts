import type { Env } from "../env";

/** The runner of an account. */
export function evaluationRunner(env: Pick<Env, "EVALUATIONS">, accountId: string) {
  return env.EVALUATIONS.get(env.EVALUATIONS.idFromName(accountId));
}

/** Kicks an account's runner; a failure is logged (the cron tick and reads of a stalled run kick again). */
export async function kickRunner(env: Pick<Env, "EVALUATIONS">, accountId: string): Promise<void> {
  try {
    await evaluationRunner(env, accountId).kick(accountId);
  } catch (err) {
    console.error(`evaluation runner not kicked ${accountId}: ${err instanceof Error ? err.message : err}`);
  }
}
