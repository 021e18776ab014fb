import { z } from "@hono/zod-openapi";
import { BATCH_EVENT_TYPES, Batch } from "./batches";
import { Calibration } from "./calibrations";
import { QuestionDrift } from "./questions";

const event = {
  id: z.string().openapi({ example: "evt_01JD0000000000000000000000" }),
  object: z.literal("event"),
  created: z.number().int().openapi({ description: "Unix time in seconds." }),
};

/**
 * The body of a webhook call, signed in `svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`: a batch that
 * ended, a question that drifted (its drift report and the keys' mode), or a calibration fitted in the background
 * that ended (`calibration.ready`: active; `calibration.failed`: see its `error`), as its GET then answers.
 */
export const WebhookEvent = z
  .union([
    z.object({ ...event, type: z.enum(BATCH_EVENT_TYPES), data: z.object({ object: Batch }) }),
    z.object({
      ...event,
      type: z.literal("question.drifted"),
      data: z.object({ object: QuestionDrift.extend({ mode: z.enum(["live", "test"]) }) }),
    }),
    z.object({
      ...event,
      type: z.enum(["calibration.ready", "calibration.failed"]),
      data: z.object({ object: Calibration }),
    }),
  ])
  .openapi("WebhookEvent");
