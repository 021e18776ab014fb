/**
 * How long one attempt may take. A decide's work grows with its input (the engine reads every token of the
 * state and questions), so a call with a body gets a bound that grows with the body's size; the SDK cannot
 * count billable tokens, and bytes bound them (docs/decisions.md, "SDKs (issue 32)").
 */
export interface TimeoutOptions {
  /**
   * Bound on one attempt in ms (default 60,000): the whole bound of a call without a body, and the base of
   * a decide's bound, which adds `timeoutMsPerKiB` per KiB of its body.
   */
  timeoutMs?: number;
  /** What a decide's bound grows by per KiB of its JSON body, in ms (default 20,000). */
  timeoutMsPerKiB?: number;
  /** Upper bound of a computed bound in ms (default 900,000: 15 minutes). */
  maxTimeoutMs?: number;
}

/** The defaults of `TimeoutOptions`. */
export const DEFAULT_TIMEOUTS: Required<TimeoutOptions> = {
  timeoutMs: 60_000,
  timeoutMsPerKiB: 20_000,
  maxTimeoutMs: 900_000,
};

/**
 * Milliseconds one attempt of a call may take: `timeoutMs`, plus `timeoutMsPerKiB` for each KiB of the
 * body (`bodyBytes`, 0 without a body), at most `maxTimeoutMs` (and never below `timeoutMs`).
 */
export function attemptTimeoutMs(bodyBytes: number, options: Required<TimeoutOptions>): number {
  const grown = options.timeoutMs + (options.timeoutMsPerKiB * bodyBytes) / 1024;
  return Math.round(Math.max(options.timeoutMs, Math.min(options.maxTimeoutMs, grown)));
}
