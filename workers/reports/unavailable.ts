import { ApiError } from "../errors";
import { logEvent } from "../observability/log";

/** A report read whose store failed: logged as `event`, answered 503 `maintenance`; the spec's errors pass through. */
export function reportsUnavailable(event: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof ApiError) throw err;
    logEvent("error", event, { error: err instanceof Error ? err.name : "error" });
    throw new ApiError("maintenance", { message: "Usage reports are temporarily unavailable." });
  };
}
