import { type NeonQueryFunction, neon, neonConfig, Pool, type PoolClient } from "@neondatabase/serverless";
import type { Env } from "../env";

/** The env values the Postgres stores read. */
export type DbEnv = Pick<Env, "DATABASE_URL" | "NEON_WS_PROXY" | "NEON_HTTP_ENDPOINT">;

/** Thrown when DATABASE_URL is not configured (callers map it to 503 like any store outage). */
export class DatabaseNotConfigured extends Error {
  constructor() {
    super("DATABASE_URL is not set");
  }
}

// neonConfig is process-wide; every store goes through here so there is one place that sets it.
function configure(env: DbEnv): string {
  if (!env.DATABASE_URL) throw new DatabaseNotConfigured();
  if (env.NEON_WS_PROXY) {
    const proxy = env.NEON_WS_PROXY;
    neonConfig.wsProxy = (host, port) => `${proxy}?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    // Pipelined connect only works with cleartext-password auth; local servers use trust/SCRAM.
    neonConfig.pipelineConnect = false;
  }
  if (env.NEON_HTTP_ENDPOINT) {
    const endpoint = env.NEON_HTTP_ENDPOINT;
    neonConfig.fetchEndpoint = () => endpoint;
  }
  return env.DATABASE_URL;
}

/**
 * One-shot queries over Neon's HTTP endpoint (no connection to manage):
 * `await getSql(env)\`SELECT ... WHERE id = ${id}\`` or `getSql(env).query(text, params)`;
 * `getSql(env).transaction([...])` runs a non-interactive batch in one transaction.
 */
export function getSql(env: DbEnv): NeonQueryFunction<false, false> {
  return neon(configure(env));
}

/**
 * A WebSocket Pool for interactive transactions. Workers cannot share I/O across requests: create it
 * inside the request and `await pool.end()` when done (or use `withTransaction`).
 */
export function getPool(env: DbEnv): Pool {
  return new Pool({ connectionString: configure(env), max: 1 });
}

/** Runs `fn` inside BEGIN/COMMIT on a fresh connection; rolls back and rethrows on error; always closes. */
export async function withTransaction<T>(env: DbEnv, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const pool = getPool(env);
  try {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

/** Postgres for the services of one env; `sql()` throws `DatabaseNotConfigured` when unset. */
export interface Database {
  readonly configured: boolean;
  sql(): NeonQueryFunction<false, false>;
  transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T>;
}

/** The env's database, its HTTP query function made once. */
export function database(env: DbEnv): Database {
  let sql: NeonQueryFunction<false, false> | undefined;
  return {
    configured: Boolean(env.DATABASE_URL),
    sql: () => {
      sql ??= getSql(env);
      return sql;
    },
    transaction: (fn) => withTransaction(env, fn),
  };
}

/** A timestamp column as ms since epoch (null stays null). */
export const msOrNull = (v: unknown): number | null =>
  v === null || v === undefined ? null : new Date(String(v)).getTime();
/** ms since epoch as the ISO text a timestamp parameter takes. */
export const isoTime = (t: number) => new Date(t).toISOString();
/** A query's answer as its rows. */
export const asRows = (r: unknown) => r as Record<string, unknown>[];
