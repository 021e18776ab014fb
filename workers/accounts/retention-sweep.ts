import type { Env } from "../env";
import { logEvent } from "../observability/log";
import { deleteExpiredContentLogs } from "../stores/content-logs";
import { database } from "../stores/db";
import { deleteExpiredSessions } from "../stores/sessions";
import { deleteExpiredSignInCodes } from "../stores/sign-in-codes";

/**
 * The console's part of the Worker's scheduled handler (every 5 minutes): deletes logged content whose
 * retention has ended, sessions and sign-in codes past their expiry. Logs counts only.
 */
export async function sweepConsoleData(env: Env): Promise<void> {
  if (!env.DATABASE_URL) return;
  const db = database(env);
  const [logs, sessions, codes] = await Promise.all([
    deleteExpiredContentLogs(db),
    deleteExpiredSessions(db),
    deleteExpiredSignInCodes(db),
  ]);
  if (logs || sessions || codes)
    logEvent("info", "console_sweep", { content_logs: logs, sessions, sign_in_codes: codes });
}
