import type { Context } from "hono";
import type { AppEnv } from "../context/app-env";
import { ApiError } from "../errors";

/** A list route's query parameters: unknown names first (422 unknown_field), then each value (422 invalid_value). */
export function queryOf(c: Context<AppEnv>, allowed: readonly string[]): Map<string, string> {
  const url = new URL(c.req.url);
  const out = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    if (!allowed.includes(name))
      throw new ApiError("unknown_field", { param: name, message: `Unknown query parameter \`${name}\`.` });
    if (out.has(name))
      throw new ApiError("invalid_value", { param: name, message: `\`${name}\` is given more than once.` });
    out.set(name, value);
  }
  return out;
}

/** An integer query parameter from `min` to `max`, else `fallback` when absent (422 invalid_value). */
export function intParam(
  q: Map<string, string>,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const text = q.get(name);
  if (text === undefined) return fallback;
  const n = /^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max))
    throw new ApiError("invalid_value", {
      param: name,
      message: `\`${name}\` must be an integer from ${min} to ${max}.`,
    });
  return n;
}

/** A list page's place: how many (`limit`) and after which id (`starting_after`, null: from the newest). */
export interface PageQuery {
  limit: number;
  after: string | null;
}

/**
 * The query of a list of ids newest first: only `limit` (1–100, default 20) and `starting_after` (an id matching
 * `pattern`, `what` naming it in the 422 `invalid_value`).
 */
export function pageQuery(c: Context<AppEnv>, pattern: RegExp, what: string): PageQuery {
  const q = queryOf(c, ["limit", "starting_after"]);
  const limit = intParam(q, "limit", 1, 100, 20);
  const after = q.get("starting_after") ?? null;
  if (after !== null && !pattern.test(after))
    throw new ApiError("invalid_value", {
      param: "starting_after",
      message: `\`starting_after\` is ${what}.`,
    });
  return { limit, after };
}
