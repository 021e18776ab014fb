import { WEBHOOK_SIGNATURE_HEADER } from "../../schema/batches";
import { hmacHex } from "../../schema/signing";
import { logEvent } from "../observability/log";
import { batchProgress } from "../stores/batch-runs";
import type { Database } from "../stores/db";
import { dueDeliveries, findWebhookEndpoint, fixPayload, recordAttempt } from "../stores/webhooks";
import { batchJson } from "./json";

/** Waits between attempts of one event (then the last one repeats), for a day after the event. */
export const DELIVERY_BACKOFF_MS = [60_000, 300_000, 900_000, 3_600_000, 7_200_000, 14_400_000];
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;
/** One attempt may take this long before it counts as failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * An endpoint's signing secret. Never stored: derived from the server's secret and the endpoint's id, shown once
 * when the endpoint is set (a new endpoint id is a new secret).
 */
export async function webhookSecret(serverSecret: string, endpointId: string): Promise<string> {
  return `whsec_${await hmacHex(serverSecret, `svc-webhook-endpoint:${endpointId}`)}`;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (Stripe's scheme). */
export async function signatureHeader(secret: string, body: string, at: number): Promise<string> {
  const t = Math.floor(at / 1000);
  return `t=${t},v1=${await hmacHex(secret, `${t}.${body}`)}`;
}

export { checkWebhookUrl } from "./webhook-url";

export interface DeliveryDeps {
  db: Database;
  /** The server secret the endpoints' secrets derive from (CONSOLE_SECRET). */
  serverSecret: string;
  fetch?: typeof fetch;
  now?: () => number;
}

/**
 * Sends the account's due events to its endpoint, each signed, once at a time; a 2xx delivers it, anything else
 * (a redirect too: never followed; or no answer within 10 s) retries it with backoff for a day after the event. Returns how many were sent.
 */
export async function deliverDueEvents(deps: DeliveryDeps, accountId: string): Promise<number> {
  const due = await dueDeliveries(deps.db, accountId, 20);
  if (due.length === 0) return 0;
  const endpoint = await findWebhookEndpoint(deps.db, accountId);
  const clock = () => deps.now?.() ?? Date.now();
  let sent = 0;
  for (const d of due) {
    if (!endpoint) {
      await recordAttempt(deps.db, d.id, {
        delivered: false,
        status: null,
        error: "no endpoint",
        nextAt: null,
      });
      continue;
    }
    let payload = d.payload;
    if (payload === null) {
      const batch = await batchProgress(deps.db, d.batchId);
      if (!batch) {
        await recordAttempt(deps.db, d.id, {
          delivered: false,
          status: null,
          error: "batch deleted",
          nextAt: null,
        });
        continue;
      }
      const event = {
        id: d.id,
        object: "event",
        type: d.type,
        created: Math.floor(d.createdAt / 1000),
        data: { object: batchJson(batch) },
      };
      payload = await fixPayload(deps.db, d.id, JSON.stringify(event));
    }
    const secret = await webhookSecret(deps.serverSecret, endpoint.id);
    let status: number | null = null;
    let error = "";
    try {
      const res = await (deps.fetch ?? fetch)(endpoint.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "svc-webhooks/1",
          [WEBHOOK_SIGNATURE_HEADER]: await signatureHeader(secret, payload, clock()),
        },
        body: payload,
        // A 3xx is a failed delivery: following it would let an endpoint send the service anywhere, past
        // the URL check (issue 50 item 6).
        redirect: "manual",
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      status = res.status;
      await res.body?.cancel().catch(() => {});
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    sent++;
    if (status !== null && status >= 200 && status < 300) {
      await recordAttempt(deps.db, d.id, { delivered: true, status });
      continue;
    }
    const wait = DELIVERY_BACKOFF_MS[Math.min(d.attempts, DELIVERY_BACKOFF_MS.length - 1)]!;
    const nextAt = clock() + wait <= d.createdAt + DELIVERY_WINDOW_MS ? clock() + wait : null;
    logEvent("warn", nextAt === null ? "webhook_given_up" : "webhook_failed", {
      event_id: d.id,
      account_id: accountId,
      status,
      error: error || null,
    });
    await recordAttempt(deps.db, d.id, {
      delivered: false,
      status,
      error: error || `HTTP ${status}`,
      nextAt,
    });
  }
  return sent;
}
