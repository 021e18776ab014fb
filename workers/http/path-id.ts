import type { Context } from "hono";
import type { AppEnv } from "../context/app-env";

/** The `{id}` of a route's path as sent ("" when none): a service answers 404 for an id that is not its own. */
export function pathId(c: Context<AppEnv>): string {
  return c.req.param("id") ?? "";
}
