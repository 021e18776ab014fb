import type { KeyUsage, UsageBatchLines, UsagePoint, UsageReport, UsageSeries } from "../../schema/usage";
import { type UsageBucketRow, type UsageCounts, ZERO_COUNTS } from "../stores/usage-reports";
import { bucketStarts, bucketWidthMs, formatUtcDateTime } from "./buckets";
import type { UsageRange, UsageReportParams, UsageSeriesParams } from "./params";

/** Every bucket of the range, as `point` makes it from the bucket's row (zeros where none exists). */
function eachBucket<P>(
  range: UsageRange,
  rows: readonly UsageBucketRow[],
  point: (r: UsageCounts, bounds: { start: string; end: string }) => P,
): P[] {
  const byBucket = new Map(rows.map((r) => [r.bucketMs, r]));
  const width = bucketWidthMs(range.granularity);
  return bucketStarts(range.startMs, range.endMs, range.granularity).map((t) =>
    point(byBucket.get(t) ?? ZERO_COUNTS, { start: formatUtcDateTime(t), end: formatUtcDateTime(t + width) }),
  );
}

/** Every bucket of the range for one group, zeros where no row exists. */
export function fillPoints(range: UsageRange, rows: readonly UsageBucketRow[]): UsagePoint[] {
  return eachBucket(range, rows, (r, bounds) => ({
    ...bounds,
    requests: r.requests,
    input_tokens: r.input_tokens,
    charge_micro_cents: r.charge_micro_cents,
    gpu_requests: r.gpu_requests,
    fallback_requests: r.fallback_requests,
    error_requests: r.error_requests,
  }));
}

/** Rows split by group, groups in code-point order (null first); `always` groups appear even without rows. */
export function groupRows(
  rows: readonly UsageBucketRow[],
  always: ReadonlyArray<string | null> = [],
): Map<string | null, UsageBucketRow[]> {
  const groups = new Map<string | null, UsageBucketRow[]>(always.map((g) => [g, []]));
  for (const r of rows) {
    const list = groups.get(r.group);
    if (list) list.push(r);
    else groups.set(r.group, [r]);
  }
  const order = (a: string | null, b: string | null) =>
    a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;
  return new Map([...groups].sort(([a], [b]) => order(a, b)));
}

/**
 * The usage series body: one entry per group seen in the range (exactly one, group null, for
 * `group_by=none`, even when nothing was used), every bucket present.
 */
export function shapeUsageSeries(params: UsageSeriesParams, rows: readonly UsageBucketRow[]): UsageSeries {
  const always = params.groupBy === "none" ? [null] : [];
  const series = [...groupRows(rows, always)].map(([group, list]) => ({
    group,
    points: fillPoints(params, list),
  }));
  return {
    object: "usage_series",
    start: params.start,
    end: params.end,
    granularity: params.granularity,
    group_by: params.groupBy,
    series,
  };
}

/**
 * The GET /v1/usage body from rows grouped by key: one entry per key with usage in the range (the filtered
 * key always, even without usage), every bucket present.
 */
export function shapeUsageReport(params: UsageReportParams, rows: readonly UsageBucketRow[]): UsageReport {
  const always = params.keyId === null ? [] : [params.keyId];
  const data: KeyUsage[] = [];
  for (const [group, list] of groupRows(rows, always)) {
    if (group !== null) data.push({ object: "key_usage", key_id: group, points: fillPoints(params, list) });
  }
  return {
    object: "usage",
    start: params.start,
    end: params.end,
    granularity: params.granularity,
    key_id: params.keyId,
    data,
  };
}

/** The batch-lines body: every bucket of the range, from the roll-ups' batch columns (rows grouped by `none`). */
export function shapeBatchLines(range: UsageRange, rows: readonly UsageBucketRow[]): UsageBatchLines {
  const points = eachBucket(range, rows, (r, bounds) => ({
    ...bounds,
    requests: r.batch_requests,
    input_tokens: r.batch_input_tokens,
    charge_micro_cents: r.batch_charge_micro_cents,
    error_requests: r.batch_error_requests,
  }));
  return {
    object: "usage_batch_lines",
    start: range.start,
    end: range.end,
    granularity: range.granularity,
    points,
  };
}
