import { Redis } from "@upstash/redis";
import type { Env } from "../env";

/** The store the money path cannot reach (Redis down or not configured). */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`redis unreachable: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Runs Redis operations for the services of one env; every failure becomes `StoreUnavailableError`. */
export interface RedisAccess {
  run<T>(op: (redis: Redis) => Promise<T>): Promise<T>;
}

/**
 * Upstash REST access for an env, its client made once (per services, i.e. per isolate). The client fails
 * fast instead of retrying for long; without URL and token every call is a `StoreUnavailableError`.
 */
export function redisAccess(
  env: Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN">,
): RedisAccess {
  const url = env.UPSTASH_REDIS_REST_URL;
  const token = env.UPSTASH_REDIS_REST_TOKEN;
  const client =
    url && token
      ? new Redis({ url, token, retry: { retries: 1, backoff: () => 20 }, enableTelemetry: false })
      : null;
  return {
    async run(op) {
      if (!client) throw new StoreUnavailableError("UPSTASH_REDIS_REST_URL / _TOKEN not set");
      try {
        return await op(client);
      } catch (err) {
        throw new StoreUnavailableError(err);
      }
    },
  };
}
