import { kickRunner } from "../clients/runner";
import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";
import { database } from "../stores/db";
import { recentlyAskedQuestions } from "../stores/questions";
import { DRIFT_WINDOW_MS, evaluateDrift } from "./drift";

/** Questions one scheduled run evaluates at most (the most recently asked first). */
const SWEEP_LIMIT = 5_000;

/**
 * The scheduled drift evaluation (hourly, off the hot path): every question answered in the last week, each
 * version against its reference; a crossing queues one `question.drifted` event. Answers how many were evaluated.
 */
export async function sweepQuestionDrift(env: Env, nowMs = Date.now()): Promise<number> {
  const db = database(env);
  const deps = { db, kick: (accountId: string) => kickRunner(env, accountId) };
  const questions = await recentlyAskedQuestions(db, nowMs - DRIFT_WINDOW_MS, SWEEP_LIMIT);
  let done = 0;
  for (const q of questions) {
    try {
      await evaluateDrift(deps, q, nowMs, true);
      done++;
    } catch (err) {
      logEvent("error", "question_drift_failed", { account_id: q.accountId, error: errorText(err) });
    }
  }
  return done;
}
