import { z } from "zod";

/**
 * What a worker last reported for one version (`x-svc-engine-load` on an answer, or `/readyz`'s `load`):
 * tokens evaluated per second of decode time, planned tokens queued in total and in its least loaded lane.
 */
export const WorkerLoad = z.object({
  tokens_per_second: z.number().nonnegative(),
  queued_tokens: z.number().nonnegative(),
  wait_tokens: z.number().nonnegative(),
  lanes: z.number().int().positive(),
});
export type WorkerLoad = z.infer<typeof WorkerLoad>;

/** Response header of a worker's answer with its `WorkerLoad` (gpu-worker/src/server.ts `LOAD_HEADER`). */
export const LOAD_HEADER = "x-svc-engine-load";

/**
 * Tokens a worker evaluates for a call of `tokens` billable tokens: the framing, the questions' prompts and labels
 * and a content-free pass come on top, and attention makes each token dearer as the state grows. An upper
 * estimate (fitted loosely on the 2-core box, docs/benchmarks.md "Mixed load"), for deadlines, not for billing.
 */
export const evaluatedEstimate = (tokens: number) => (tokens + 200) * 1.5 * (1 + tokens / 4096);

/**
 * A call's deadline from the worker's measured speed: 10 s plus three times the estimated wait (its least
 * loaded lane's queue) and run. Null while the worker has measured nothing (the caller's fixed deadline holds).
 */
export function speedDeadlineMs(tokens: number, load: WorkerLoad | undefined): number | null {
  if (!load || !(load.tokens_per_second > 0)) return null;
  return 10_000 + (3_000 * (load.wait_tokens + evaluatedEstimate(tokens))) / load.tokens_per_second;
}

/**
 * Seconds until the worker should be able to start a new call: its least loaded lane's queue ÷ its speed, less
 * the time since it reported it (`at`, ms since epoch), so a stale report expires instead of refusing for ever.
 */
export const waitSeconds = (load: WorkerLoad, at = Date.now(), now = Date.now()) =>
  Math.max(0, load.wait_tokens / load.tokens_per_second - (now - at) / 1000);

/** The spec's `retry-after` range for a 503: whole seconds, 1 to 60. */
export const clampRetryAfter = (seconds: number) => Math.min(60, Math.max(1, Math.ceil(seconds)));
