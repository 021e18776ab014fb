import { errorText, logEvent } from "../observability/log";
import type { Database } from "../stores/db";
import { countSignal, type OpsSignal } from "../stores/ops-signals";

/** Counts one failure for the alerts; never throws (a failure to count is logged, the caller's answer stands). */
export async function noteSignal(db: Database, signal: OpsSignal): Promise<void> {
  if (!db.configured) return;
  await countSignal(db, signal).catch((err) =>
    logEvent("warn", "ops_signal_not_counted", { signal, error: errorText(err) }),
  );
}
