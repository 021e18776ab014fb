import type { Context } from "hono";
import type { AppEnv } from "../../middleware/context";

/** Where Stripe sends the browser back: CONSOLE_ORIGIN (else the request's origin) plus the console path. */
export function consoleReturnUrl(c: Context<AppEnv>, returnPath: string | null): string {
  const origin = c.env.CONSOLE_ORIGIN ?? new URL(c.req.url).origin;
  return new URL(returnPath ?? "/", origin).toString();
}
