import { z } from "zod";
import { KEY_ID_PATTERN } from "./ids";

/**
 * Wire shapes of the usage reports: GET /v1/console/usage/series (spec: Usage series, field for field) and
 * GET /v1/usage (the spec leaves its body to us; docs/decisions.md, "Usage reports"). Shaped by
 * workers/reports/shape.ts; for the OpenAPI document of the routes.
 */

/** Bucket width. */
export const Granularity = z.enum(["day", "hour"]).describe("`day` (default) or `hour`; UTC buckets.");
export type Granularity = z.infer<typeof Granularity>;

/** What a usage series is split by. */
export const UsageGroupBy = z
  .enum(["none", "key", "model", "served_by"])
  .describe("`none` (default), `key`, `model` or `served_by`.");
export type UsageGroupBy = z.infer<typeof UsageGroupBy>;

const count = (description: string) => z.number().int().min(0).describe(description);

/** One bucket; empty buckets are present with zeros. */
export const UsagePoint = z.object({
  start: z.iso.datetime().describe("Bucket start (UTC)."),
  end: z.iso.datetime().describe("Bucket end (UTC), the next bucket's start."),
  requests: count("Successful decide calls (billed or test); replays not included."),
  input_tokens: count("Input tokens of those calls (int64)."),
  charge_micro_cents: count("Their charge in micro-cents (int64)."),
  gpu_requests: count("Successful calls served by the GPU path."),
  fallback_requests: count("Successful calls served by the fallback path."),
  error_requests: count("Authenticated decide calls that ended in an error; never charged."),
});
export type UsagePoint = z.infer<typeof UsagePoint>;

const DateOnly = z.iso.date();

/** GET /v1/console/usage/series, 200. */
export const UsageSeries = z.object({
  object: z.literal("usage_series"),
  start: DateOnly.describe("First UTC date included (echo)."),
  end: DateOnly.describe("First UTC date not included (echo)."),
  granularity: Granularity,
  group_by: UsageGroupBy,
  series: z.array(
    z.object({
      group: z
        .string()
        .nullable()
        .describe("Key id, model or served_by value (`none`: no model or path reached); null for `none`."),
      points: z.array(UsagePoint),
    }),
  ),
});
export type UsageSeries = z.infer<typeof UsageSeries>;

/** One bucket of the batch lines among an account's calls (console only; docs/decisions.md). */
export const BatchLinesPoint = z.object({
  start: z.iso.datetime().describe("Bucket start (UTC)."),
  end: z.iso.datetime().describe("Bucket end (UTC), the next bucket's start."),
  requests: count("Batch lines answered (billed or test): part of the series' `requests`."),
  input_tokens: count("Input tokens of those lines (int64)."),
  charge_micro_cents: count("Their charge in micro-cents (int64)."),
  error_requests: count("Batch lines that finished with an error; never charged."),
});
export type BatchLinesPoint = z.infer<typeof BatchLinesPoint>;

/** GET /v1/console/usage/batch-lines, 200: the same buckets as the usage series, batch lines only. */
export const UsageBatchLines = z.object({
  object: z.literal("usage_batch_lines"),
  start: DateOnly.describe("First UTC date included (echo)."),
  end: DateOnly.describe("First UTC date not included (echo)."),
  granularity: Granularity,
  points: z.array(BatchLinesPoint),
});
export type UsageBatchLines = z.infer<typeof UsageBatchLines>;

/** One key's buckets in GET /v1/usage. */
export const KeyUsage = z.object({
  object: z.literal("key_usage"),
  key_id: z.string().describe("Key id."),
  points: z.array(UsagePoint),
});
export type KeyUsage = z.infer<typeof KeyUsage>;

/** GET /v1/usage, 200. */
export const UsageReport = z.object({
  object: z.literal("usage"),
  start: DateOnly.describe("First UTC date included."),
  end: DateOnly.describe("First UTC date not included (default: through today, within the longest range)."),
  granularity: Granularity,
  key_id: z.string().nullable().describe("The `key_id` filter, or null for every key."),
  data: z.array(KeyUsage).describe("One entry per key with usage in the range (the filtered key always)."),
});
export type UsageReport = z.infer<typeof UsageReport>;

/** The query of GET /v1/usage as documented (the route parses it itself, by the spec's precedence). */
export const UsageReportQuery = z.object({
  start: z.iso.date().describe("First UTC date included (required)."),
  end: z.iso
    .date()
    .optional()
    .describe("First UTC date not included; default through today, within the longest range."),
  granularity: Granularity.optional(),
  key_id: z.string().regex(KEY_ID_PATTERN).optional().describe("Only this key."),
});

/** The query of GET /v1/console/usage/batch-lines: the usage series' range, no grouping. */
export const UsageBatchLinesQuery = z.object({
  start: z.iso.date().describe("First UTC date included."),
  end: z.iso.date().describe("First UTC date not included."),
  granularity: Granularity.optional(),
});

/** The query of GET /v1/console/usage/series as documented (spec: Usage series). */
export const UsageSeriesQuery = z.object({
  start: z.iso.date().describe("First UTC date included."),
  end: z.iso.date().describe("First UTC date not included."),
  granularity: Granularity.optional(),
  group_by: UsageGroupBy.optional(),
});
