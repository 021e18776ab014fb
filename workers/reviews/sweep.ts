import type { Env } from "../env";
import { logEvent } from "../observability/log";
import { database } from "../stores/db";
import { deleteExpiredReviews } from "../stores/reviews";

/** The cron's part for reviews: delete kept items past their 30 days (customer content), labelled or not. */
export async function sweepReviews(env: Env): Promise<void> {
  try {
    const deleted = await deleteExpiredReviews(database(env));
    if (deleted > 0) logEvent("info", "reviews_deleted", { deleted });
  } catch (err) {
    logEvent("error", "review_sweep_failed", { error: err instanceof Error ? err.name : String(err) });
  }
}
