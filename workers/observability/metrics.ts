import { errorText, logEvent } from "./log";
import type { RequestLineFields } from "./request-line";

/**
 * The part of a Workers Analytics Engine dataset binding the edge uses. Production and Miniflare bind the real
 * one (`[[analytics_engine_datasets]]` in wrangler.toml; Miniflare's local simulator drops the points).
 */
export interface MetricsDataset {
  writeDataPoint(point: { indexes?: string[]; blobs?: (string | null)[]; doubles?: number[] }): void;
}

/**
 * The data point of one request, column by column (Analytics Engine names them blob1…, double1…, in this
 * order; docs/deploy.md has the queries). The index, which sampling keeps together, is the route.
 */
export const REQUEST_BLOBS = [
  "route",
  "status",
  "error_code",
  "served_by",
  "model",
  "mode",
  "priority",
  "idempotency",
] as const;
export const REQUEST_DOUBLES = [
  "latency_ms",
  "gpu_ms",
  "gpu_attempts",
  "input_tokens",
  "charge_micro_cents",
  "status",
] as const;

/** One request as an Analytics Engine data point (blobs and doubles in the orders above). */
export function requestPoint(line: RequestLineFields): {
  indexes: string[];
  blobs: (string | null)[];
  doubles: number[];
} {
  const route = line.route ?? "unmatched";
  return {
    indexes: [route],
    blobs: REQUEST_BLOBS.map((name) => {
      const v = name === "route" ? route : line[name];
      return v === null ? null : String(v);
    }),
    doubles: REQUEST_DOUBLES.map((name) => line[name] ?? 0),
  };
}

/** Writes a request's data point; a failing binding costs a log line, never the request. */
export function writeRequestPoint(dataset: MetricsDataset, line: RequestLineFields): void {
  try {
    dataset.writeDataPoint(requestPoint(line));
  } catch (err) {
    logEvent("warn", "metrics_write_failed", { request_id: line.request_id, error: errorText(err) });
  }
}
