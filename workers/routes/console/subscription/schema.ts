import { z } from "@hono/zod-openapi";

/** A scheduled downgrade (GET /v1/console/subscription's `pending_downgrade`). */
export const DowngradeSchema = z
  .object({
    id: z.string().openapi({ example: "sdg_01JDQ8ZK2M3N4P5Q6R7S8T9V0W" }),
    object: z.literal("subscription_downgrade"),
    from_plan: z.string().openapi({ example: "hot" }),
    plan: z.string().openapi({ description: "The cheaper plan the subscription moves to.", example: "base" }),
    status: z
      .enum(["pending", "scheduled", "completed", "canceled"])
      .openapi({ description: "`pending` while the payment provider is asked, then `scheduled`." }),
    effective_at: z
      .string()
      .datetime()
      .nullable()
      .openapi({ description: "End of the current period, when the change happens (null while pending)." }),
  })
  .openapi("SubscriptionDowngrade");

/** The signed-in account's subscription; every field null when it has none. */
export const SubscriptionSchema = z
  .object({
    object: z.literal("subscription"),
    id: z.string().nullable().openapi({ example: "sub_1Q2w3E4r5T6y7U8i" }),
    plan: z.string().nullable().openapi({ example: "hot" }),
    status: z
      .string()
      .nullable()
      .openapi({ description: "Stripe's status: `active`, `past_due` or `trialing`.", example: "active" }),
    current_period_end: z.string().datetime().nullable(),
    pending_downgrade: DowngradeSchema.nullable().openapi({
      description: "A change to a cheaper plan at the end of the period; it holds a seat on that plan.",
    }),
  })
  .openapi("ConsoleSubscription");
