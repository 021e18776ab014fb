import type { Database } from "../stores/db";
import type { RedisAccess } from "../stores/redis";

/** Bound on a store probe: a stalled store is as down as a refusing one. */
export const PROBE_TIMEOUT_MS = 2_000;

async function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** An error's text for an alert, any credentials of a URL in it masked. */
function why(err: unknown): string {
  return (err instanceof Error ? err.message : String(err))
    .replace(/:\/\/[^@\s/]*@/g, "://***@")
    .slice(0, 300);
}

/** Null when the store answered, else why not. */
export type ProbeResult = string | null;

/** `PING` through the Upstash REST client. */
export async function probeRedis(redis: RedisAccess, ms = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  try {
    const pong = await bounded(
      redis.run((r) => r.ping()),
      ms,
    );
    return pong === "PONG" ? null : `PING answered ${String(pong)}`;
  } catch (err) {
    return why(err);
  }
}

/** `SELECT 1` through the Neon driver. */
export async function probePostgres(db: Database, ms = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  if (!db.configured) return "DATABASE_URL is not set";
  try {
    await bounded(db.sql().query("SELECT 1"), ms);
    return null;
  } catch (err) {
    return why(err);
  }
}
