import type { Context } from "hono";

/**
 * Lets `work` finish after the response, or after the client has gone (Workers `waitUntil`); where there is no
 * execution context (tests calling the app directly) it simply runs on. Its rejection is the caller's to report.
 */
export function inBackground(c: Context, work: Promise<unknown>): void {
  const settled = work.catch(() => {});
  try {
    c.executionCtx.waitUntil(settled);
  } catch {
    void settled;
  }
}
