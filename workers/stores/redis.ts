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
 * How replies reach the caller: `parsed` (the client's default: strings base64-encoded in transit, then each
 * reply string that is JSON parsed), or `plain` (replies as Redis sent them, no transport encoding and no
 * parsing), for stores whose scripts return only numbers and UTF-8 text they parse themselves. `plain` is the
 * decide path's: the default's per-string decode and `JSON.parse` attempts (a thrown SyntaxError for every
 * string that is not JSON) cost it about half a millisecond of CPU per call (docs/benchmarks.md, issue 53).
 */
export type RedisReplies = "parsed" | "plain";

/**
 * Upstash REST access for an env, its client made once (per services, i.e. per isolate). The client fails
 * fast instead of retrying for long; without URL and token every call is a `StoreUnavailableError`.
 */
export function redisAccess(
  env: Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN">,
  replies: RedisReplies = "parsed",
): RedisAccess {
  const url = env.UPSTASH_REDIS_REST_URL;
  const token = env.UPSTASH_REDIS_REST_TOKEN;
  const client =
    url && token
      ? new Redis({
          url,
          token,
          retry: { retries: 1, backoff: () => 20 },
          enableTelemetry: false,
          ...(replies === "plain" && { responseEncoding: false, automaticDeserialization: false }),
        })
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
