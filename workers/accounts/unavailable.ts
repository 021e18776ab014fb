import { ApiError } from "../errors";
import { logEvent } from "../observability/log";

/**
 * Runs a console store or provider call; an outage (anything but an ApiError) becomes 503 `maintenance` —
 * nothing the caller asked for was done. Logs the error's name only, never its text (it may hold an address).
 */
export async function orMaintenance<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    logEvent("error", "console_dependency_unavailable", {
      what,
      error: err instanceof Error ? err.name : "error",
    });
    throw new ApiError("maintenance", { message: "The console is temporarily unavailable." });
  }
}

/** The console secret, or 503 `maintenance` when the Worker has none (console sign-in is then off). */
export function consoleSecret(env: { CONSOLE_SECRET?: string }): string {
  const secret = env.CONSOLE_SECRET;
  if (!secret) throw new ApiError("maintenance", { message: "Console sign-in is not configured." });
  return secret;
}
