import { z } from "@hono/zod-openapi";
import Stripe from "stripe";
import { resumeAfterCredit } from "../../batches/resume";
import { handleStripeEvent } from "../../billing/stripe-events";
import { STRIPE_WEBHOOK_IPS } from "../../clients/stripe";
import { inBackground } from "../../context/background";
import { ApiError } from "../../errors";
import { MAX_OTHER_BODY_BYTES, readTextLimited } from "../../http/body";
import { clientNetwork } from "../../limits/client-network";
import { logEvent } from "../../observability/log";
import { noteSignal } from "../../stores/ops-signals";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

const Received = z.object({ received: z.literal(true), outcome: z.string() });

/**
 * POST /v1/webhooks/stripe: Stripe's events. The body is read as a stream, at most 1 MiB (413
 * `body_too_large` beyond, before anything else looks at it); then the signature (`stripe-signature`, HMAC
 * of the raw body with STRIPE_WEBHOOK_SECRET, 300 s tolerance) is checked with the SDK's async verifier, the
 * one that runs on Workers (SubtleCrypto). A bad or missing signature → 400 `invalid_header`, counted per client
 * network in Redis (past 20 a minute → 429 `requests_per_minute`) and, only when it comes from one of Stripe's
 * own webhook addresses, for the `stripe_signature_failures` alert; a failure while handling → 5xx,
 * so Stripe retries (for up to 3 days); handlers are idempotent.
 */
export const stripeWebhook = endpoint(
  {
    method: "post",
    path: "/v1/webhooks/stripe",
    operationId: "receiveStripeEvent",
    summary: "Stripe webhook (signed)",
    auth: "public",
    hidden: true,
    responses: { 200: jsonResponse("The event was handled (or is of no interest).", Received) },
    errors: ["body_too_large", "maintenance", "requests_per_minute"],
  },
  async function stripeWebhookHandler(c) {
    const stripe = c.var.stripe;
    const secret = c.env.STRIPE_WEBHOOK_SECRET;
    if (!stripe || !secret) throw new ApiError("maintenance", { message: "Billing is not configured." });
    const payload = await readTextLimited(c.req.raw, MAX_OTHER_BODY_BYTES);
    const signature = c.req.header("stripe-signature") ?? "";
    let event: Stripe.Event;
    try {
      event = await stripe.webhooks.constructEventAsync(payload, signature, secret);
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeSignatureVerificationError)) throw error;
      const address = c.req.header("cf-connecting-ip") ?? "";
      const fromStripe = STRIPE_WEBHOOK_IPS.includes(address);
      if (!fromStripe) await c.var.addressLimits.stripeSignatureFailure(clientNetwork(address));
      logEvent("warn", "webhook_signature_failed", {
        source: "stripe",
        from_stripe: fromStripe,
        request_id: c.var.requestId,
      });
      // Only Stripe's own addresses feed the alert: a failure from them means the secret no longer matches.
      if (fromStripe) inBackground(c, noteSignal(c.var.db, "stripe_signature_failure"));
      throw new ApiError("invalid_header", { param: "stripe-signature", message: "Bad Stripe signature." });
    }
    const outcome = await handleStripeEvent(
      {
        db: c.var.db,
        ledger: c.var.ledger,
        email: c.var.email,
        stripe,
        credited: (accountId) => resumeAfterCredit(c.env, c.var.db, accountId),
      },
      event,
    );
    return c.json({ received: true as const, outcome }, 200);
  },
);
