import type { Context } from "hono";
import type { AppEnv } from "../../context/app-env";

/**
 * The console origin followed by a console path, as text: never `new URL(path, origin)`, which reads a path
 * such as `//host/x` (the spec's `return_path` pattern admits it) as another origin.
 */
export function consolePathUrl(origin: string, path: string): string {
  return new URL(origin).origin + path;
}

/** Where Stripe sends the browser back: CONSOLE_ORIGIN (else the request's origin) plus the console path. */
export function consoleReturnUrl(c: Context<AppEnv>, returnPath: string | null): string {
  return consolePathUrl(c.env.CONSOLE_ORIGIN ?? c.req.url, returnPath ?? "/");
}
