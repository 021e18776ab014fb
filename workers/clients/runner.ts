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

// The schedule every slice of the runner keeps (evaluation items, batch lines, webhook deliveries).

/** One alarm works this long, then hands over to the next alarm (always well inside a Worker's limits). */
export const SLICE_MS = 25_000;
/** Waits after a serving path failed (no GPU, GPU fault, store down), doubling up to the last. */
export const BACKOFF_MS = [2_000, 4_000, 8_000, 16_000, 30_000];

/** When to run again (ms since epoch), or null when the account has nothing left to run. */
export type NextRun = number | null;

/** ms since epoch of the next 00:00 UTC after `t`: when the daily test quota comes back. */
export function nextUtcMidnight(t: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}
