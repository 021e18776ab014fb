/**
 * Shapes of the batch routes (issue 42), shared by the Worker's declarations, the OpenAPI document, the SDKs,
 * the console and the tests.
 */
import { z } from "@hono/zod-openapi";
import { Decision } from "./decide";

export const BATCH_ID_PATTERN = /^batch_[0-9A-HJKMNP-TV-Z]{26}$/;
export const BATCH_STATUSES = [
  "queued",
  "running",
  "paused",
  "completed",
  "cancelled",
  "expired",
  "failed",
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
/** A batch in one of these statuses no longer runs: its results are final. */
export const FINISHED_BATCH_STATUSES: readonly BatchStatus[] = [
  "completed",
  "cancelled",
  "expired",
  "failed",
];
export const PAUSED_REASONS = ["insufficient_balance", "test_daily_quota"] as const;

/** Lines and bytes of one upload (issue 42). */
export const MAX_BATCH_LINES = 100_000;
export const MAX_BATCH_BYTES = 100 * 1024 * 1024;
/** `custom_id`: 1–64 characters, unique in the batch. */
export const CUSTOM_ID_MAX = 64;
/** The media types a batch upload is sent as. */
export const BATCH_CONTENT_TYPES = ["application/jsonl", "application/x-ndjson"] as const;

/** Events a webhook endpoint is called with. */
export const BATCH_EVENT_TYPES = [
  "batch.completed",
  "batch.failed",
  "batch.expired",
  "batch.cancelled",
] as const;
export type BatchEventType = (typeof BATCH_EVENT_TYPES)[number];

/**
 * Every event the account's webhook endpoint is called with (schema/events.ts): the batch events, a question's
 * drift (issue 52) and the end of a calibration fitted in the background (issue 49).
 */
export const WEBHOOK_EVENT_TYPES = [
  ...BATCH_EVENT_TYPES,
  "question.drifted",
  "calibration.ready",
  "calibration.failed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const batchId = z.string().regex(BATCH_ID_PATTERN).openapi({ example: "batch_01JD0000000000000000000000" });
const unixSeconds = z.number().int().openapi({ description: "Unix time in seconds." });

/** One line of a batch upload. */
export const BatchLineWire = z
  .strictObject({
    custom_id: z.string().min(1).max(CUSTOM_ID_MAX).openapi({ description: "Unique in the batch." }),
    body: z.unknown().openapi({ description: "A DecideRequest, exactly as POST /v1/decide takes it." }),
  })
  .openapi("BatchLine");

export const Batch = z
  .object({
    id: batchId,
    object: z.literal("batch"),
    status: z.enum(BATCH_STATUSES),
    paused_reason: z
      .enum(PAUSED_REASONS)
      .nullable()
      .openapi({ description: "Why a `paused` batch waits; null otherwise." }),
    resumes_at: unixSeconds.nullable().openapi({
      description:
        "Paused for the test daily quota: the next 00:00 UTC. Null when not known (a top-up resumes it).",
    }),
    mode: z
      .enum(["live", "test"])
      .openapi({ description: "The creating key's mode: live lines are charged." }),
    model: z.string().nullable().openapi({
      description: "The model every line names (default `svc-1`); null when lines name different ones.",
      example: "svc-1",
    }),
    counts: z.object({
      total: z.number().int(),
      done: z.number().int().openapi({ description: "Lines answered (status 200)." }),
      failed: z.number().int().openapi({ description: "Lines finished with an error." }),
    }),
    usage: z.object({
      input_tokens: z.number().int(),
      charge_micro_cents: z
        .number()
        .int()
        .openapi({ description: "The sum of the answered lines' charges." }),
    }),
    created: unixSeconds,
    started: unixSeconds.nullable(),
    finished: unixSeconds.nullable(),
    expires_at: unixSeconds.openapi({ description: "created + 24 h: lines not run by then are never run." }),
    results_expire_at: unixSeconds
      .nullable()
      .openapi({ description: "finished + 30 days: lines and results are deleted then." }),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .openapi("Batch");

export const BatchList = z
  .object({ object: z.literal("list"), data: z.array(Batch), has_more: z.boolean() })
  .openapi("BatchList");

export const DeletedBatch = z
  .object({ id: batchId, object: z.literal("batch"), deleted: z.literal(true) })
  .openapi("DeletedBatch");

/** One line of GET /v1/batches/{id}/results (application/jsonl), in input order. */
export const BatchResultLine = z
  .union([
    z.object({ custom_id: z.string(), status: z.literal(200), body: Decision }),
    z.object({
      custom_id: z.string(),
      status: z.number().int().min(400).max(599),
      error: z.object({ type: z.string(), code: z.string(), message: z.string() }).passthrough(),
    }),
  ])
  .openapi("BatchResultLine");

/** The account's webhook endpoint (console settings); `secret` only in the answer that created it. */
export const WebhookEndpoint = z
  .object({
    object: z.literal("webhook_endpoint"),
    url: z.string().url(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    created: unixSeconds,
    secret: z
      .string()
      .nullable()
      .openapi({ description: "`whsec_…`, shown once when the endpoint is set; null afterwards." }),
  })
  .openapi("WebhookEndpoint");

/** The account's endpoints: none, or its one (`secret` null). The console's Settings page reads this. */
export const WebhookEndpointList = z
  .object({ object: z.literal("list"), data: z.array(WebhookEndpoint).max(1) })
  .openapi("WebhookEndpointList");

export const SetWebhookEndpointWire = z
  .strictObject({ url: z.string().url().openapi({ example: "https://example.com/svc/webhooks" }) })
  .openapi("SetWebhookEndpoint");

/** Header of a webhook call and the tolerance a receiver should allow between `t` and its clock. */
export const WEBHOOK_SIGNATURE_HEADER = "svc-signature";
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export const BatchPathParams = z.object({ id: batchId });
export const BatchListQuery = z.object({
  limit: z.string().optional().openapi({ description: "1 to 100, default 20." }),
  starting_after: z.string().optional().openapi({ description: "A batch id: the page after it." }),
});
export const ConsoleBatchQuery = z.object({
  mode: z.enum(["test", "live"]).optional().openapi({
    description: "`test` (default): the daily test quota; `live`: charged to the balance.",
  }),
});
