import type { Database } from "./db";

/** An operator switch: on or off, and the wait answered while it is on. */
export interface SwitchState {
  enabled: boolean;
  retryAfterSeconds: number;
}

/** Reads a switch (off when never set). */
export async function readSwitch(db: Database, name: string): Promise<SwitchState> {
  const rows = (await db
    .sql()
    .query("SELECT enabled, retry_after_seconds FROM operator_switches WHERE name = $1", [name])) as Record<
    string,
    unknown
  >[];
  const r = rows[0];
  return r
    ? { enabled: r.enabled === true || r.enabled === "t", retryAfterSeconds: Number(r.retry_after_seconds) }
    : { enabled: false, retryAfterSeconds: 0 };
}

/** Sets a switch. */
export async function writeSwitch(db: Database, name: string, state: SwitchState): Promise<void> {
  await db.sql().query(
    `INSERT INTO operator_switches (name, enabled, retry_after_seconds, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (name) DO UPDATE SET enabled = EXCLUDED.enabled,
       retry_after_seconds = EXCLUDED.retry_after_seconds, updated_at = now()`,
    [name, state.enabled, state.retryAfterSeconds],
  );
}
