import { KEY_ID_PATTERN } from "../../schema/ids";
import { Granularity, UsageGroupBy } from "../../schema/usage";
import { ApiError } from "../errors";
import { DAY_MS, formatUtcDate, parseUtcDate } from "./buckets";

/** Longest range per granularity, in days (spec Limits: 93 days by day, 7 days by hour). */
export const MAX_RANGE_DAYS: Readonly<Record<Granularity, number>> = { day: 93, hour: 7 };

/** A validated UTC date range: start inclusive, end exclusive, both at 00:00 UTC. */
export interface UsageRange {
  /** `YYYY-MM-DD`, echoed in the body. */
  start: string;
  end: string;
  startMs: number;
  endMs: number;
  granularity: Granularity;
}

/** GET /v1/usage: the range plus an optional key filter. */
export interface UsageReportParams extends UsageRange {
  keyId: string | null;
}

/** GET /v1/console/usage/series: the range plus the grouping. */
export interface UsageSeriesParams extends UsageRange {
  groupBy: UsageGroupBy;
}

const invalid = (param: string, message: string) => new ApiError("invalid_value", { param, message });

/** The one value of a parameter; unknown names, then missing required ones, fail first (spec precedence). */
function readQuery(
  query: URLSearchParams,
  allowed: readonly string[],
  required: readonly string[],
): Map<string, string> {
  for (const name of query.keys()) {
    if (!allowed.includes(name))
      throw new ApiError("unknown_field", { param: name, message: `Unknown query parameter \`${name}\`.` });
  }
  for (const name of required) {
    if (!query.has(name))
      throw new ApiError("missing_field", {
        param: name,
        message: `Query parameter \`${name}\` is required.`,
      });
  }
  const values = new Map<string, string>();
  for (const name of allowed) {
    const all = query.getAll(name);
    if (all.length > 1) throw invalid(name, `Query parameter \`${name}\` is given more than once.`);
    if (all.length === 1) values.set(name, all[0]!);
  }
  return values;
}

function dateParam(name: string, text: string): number {
  const ms = parseUtcDate(text);
  if (ms === null) throw invalid(name, `\`${name}\` must be a UTC calendar date \`YYYY-MM-DD\`.`);
  return ms;
}

function oneOf<T extends string>(name: string, text: string | undefined, allowed: readonly T[], dflt: T): T {
  if (text === undefined) return dflt;
  if ((allowed as readonly string[]).includes(text)) return text as T;
  throw invalid(name, `\`${name}\` must be one of ${allowed.map((a) => `\`${a}\``).join(", ")}.`);
}

function checkedRange(startMs: number, endMs: number, granularity: Granularity): UsageRange {
  if (endMs <= startMs) throw invalid("end", "`end` must be a date after `start`.");
  const max = MAX_RANGE_DAYS[granularity];
  if (endMs - startMs > max * DAY_MS)
    throw invalid("end", `A range by ${granularity} is at most ${max} days.`);
  return { start: formatUtcDate(startMs), end: formatUtcDate(endMs), startMs, endMs, granularity };
}

/**
 * The default `end` of GET /v1/usage: the range runs to the end of today (UTC) but never past the
 * granularity's longest range, and always covers at least the start day.
 */
export function defaultUsageEnd(startMs: number, granularity: Granularity, nowMs: number): number {
  const tomorrow = Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS;
  return Math.max(startMs + DAY_MS, Math.min(startMs + MAX_RANGE_DAYS[granularity] * DAY_MS, tomorrow));
}

/**
 * Parses GET /v1/usage's query (`start` required; `end`, `granularity`, `key_id` optional); throws the
 * spec's 422 (`unknown_field`, `missing_field`, `invalid_value`) with its `param`.
 */
export function parseUsageReportParams(query: URLSearchParams, nowMs = Date.now()): UsageReportParams {
  const q = readQuery(query, ["start", "end", "granularity", "key_id"], ["start"]);
  const startMs = dateParam("start", q.get("start")!);
  const endText = q.get("end");
  const endMs = endText === undefined ? undefined : dateParam("end", endText);
  const granularity = oneOf("granularity", q.get("granularity"), Granularity.options, "day");
  const keyId = q.get("key_id") ?? null;
  if (keyId !== null && !KEY_ID_PATTERN.test(keyId)) throw invalid("key_id", "`key_id` is not a key id.");
  const range = checkedRange(startMs, endMs ?? defaultUsageEnd(startMs, granularity, nowMs), granularity);
  return { ...range, keyId };
}

/**
 * Parses GET /v1/console/usage/series's query (`start`, `end` required; `granularity`, `group_by`
 * optional); throws the spec's 422 with its `param`.
 */
export function parseUsageSeriesParams(query: URLSearchParams): UsageSeriesParams {
  const q = readQuery(query, ["start", "end", "granularity", "group_by"], ["start", "end"]);
  const startMs = dateParam("start", q.get("start")!);
  const endMs = dateParam("end", q.get("end")!);
  const granularity = oneOf("granularity", q.get("granularity"), Granularity.options, "day");
  const groupBy = oneOf("group_by", q.get("group_by"), UsageGroupBy.options, "none");
  return { ...checkedRange(startMs, endMs, granularity), groupBy };
}

/**
 * Parses GET /v1/console/usage/batch-lines's query (`start`, `end` required; `granularity` optional): the usage
 * series' range and its 422s, without a grouping.
 */
export function parseUsageRangeParams(query: URLSearchParams): UsageRange {
  const q = readQuery(query, ["start", "end", "granularity"], ["start", "end"]);
  const startMs = dateParam("start", q.get("start")!);
  const endMs = dateParam("end", q.get("end")!);
  const granularity = oneOf("granularity", q.get("granularity"), Granularity.options, "day");
  return checkedRange(startMs, endMs, granularity);
}
