import type { Context } from "hono";
import { kickRunner } from "../clients/runner";
import type { AppEnv } from "../context/app-env";
import { inBackground } from "../context/background";

/** A service's kick of an account's runner: started in this request's background, never awaited. */
export function kickInBackground(c: Context<AppEnv>): (accountId: string) => void {
  return (accountId) => inBackground(c, kickRunner(c.env, accountId));
}
