import type { Context } from "hono";
import type { AppEnv } from "../context/app-env";

/** Request header a test stack's decides and drift reads may carry: the simulated time, ms since epoch. */
export const TEST_CLOCK_HEADER = "x-svc-test-clock";

/**
 * The simulated time of a request on a test stack (`ENVIRONMENT=test`), else null: anywhere else the header is
 * ignored, so no client chooses the time a decide is counted at in production.
 */
export function testClock(c: Context<AppEnv>): number | null {
  if (c.env?.ENVIRONMENT !== "test") return null;
  const text = c.req.header(TEST_CLOCK_HEADER);
  if (text === undefined || !/^[0-9]{1,15}$/.test(text)) return null;
  return Number(text);
}
