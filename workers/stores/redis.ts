import { Redis } from "@upstash/redis";
import type { Env } from "../env";

/** The store the money path cannot reach (Redis down or not configured). */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`redis unreachable: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

const clients = new Map<string, Redis>();

/** Upstash REST client for the env (one per URL per isolate); fails fast instead of retrying for long. */
export function getRedis(env: Env): Redis {
  const url = env.UPSTASH_REDIS_REST_URL;
  const token = env.UPSTASH_REDIS_REST_TOKEN;
  if (!url || !token) throw new StoreUnavailableError("UPSTASH_REDIS_REST_URL / _TOKEN not set");
  let client = clients.get(url);
  if (!client) {
    client = new Redis({ url, token, retry: { retries: 1, backoff: () => 20 }, enableTelemetry: false });
    clients.set(url, client);
  }
  return client;
}

/** Runs a Redis operation, turning transport failures into StoreUnavailableError. */
export async function withRedis<T>(env: Env, op: (redis: Redis) => Promise<T>): Promise<T> {
  let redis: Redis;
  try {
    redis = getRedis(env);
  } catch (err) {
    throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(err);
  }
  try {
    return await op(redis);
  } catch (err) {
    throw new StoreUnavailableError(err);
  }
}
