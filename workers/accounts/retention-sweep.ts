import type { Env } from "../env";
import { deleteExpiredContentLogs } from "../stores/content-logs";
import { database } from "../stores/db";
import { deleteExpiredSessions } from "../stores/sessions";

/**
 * The console's part of the Worker's scheduled handler (every 5 minutes): deletes logged content whose
 * retention has ended and sessions past their expiry. Logs counts only.
 */
export async function sweepConsoleData(env: Env): Promise<void> {
  if (!env.DATABASE_URL) return;
  const db = database(env);
  const [logs, sessions] = await Promise.all([deleteExpiredContentLogs(db), deleteExpiredSessions(db)]);
  if (logs || sessions) console.log(`console sweep: content_logs=${logs} sessions=${sessions}`);
}
