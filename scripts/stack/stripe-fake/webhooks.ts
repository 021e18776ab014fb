import { createHmac } from "node:crypto";
import { nowSeconds, stripeId } from "./objects";

/** An event as Stripe posts it. */
export interface FakeEvent {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: unknown };
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
  type: string;
}

/** A delivery attempt's outcome, kept for tests and the README's flow. */
export interface Delivery {
  event: string;
  type: string;
  status: number;
  at: number;
}

/** Stripe's signature header: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>`. */
export function signPayload(payload: string, secret: string, timestamp = nowSeconds()): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

/** Posts signed events to the webhook URL; a non-2xx answer is retried (1 s, 2 s, 4 s, 8 s) like Stripe. */
export class WebhookSender {
  readonly events: FakeEvent[] = [];
  readonly deliveries: Delivery[] = [];
  url: string | undefined;

  constructor(
    private readonly secret: string,
    private readonly apiVersion: string,
  ) {}

  /** Records an event and delivers it in the background. */
  emit(type: string, object: unknown): FakeEvent {
    const event: FakeEvent = {
      id: stripeId("evt"),
      object: "event",
      api_version: this.apiVersion,
      created: nowSeconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.events.push(event);
    void this.deliver(event, 0);
    return event;
  }

  /** Posts one event once (again), answering the Worker's status (0 when unreachable or no URL). */
  async post(event: FakeEvent): Promise<number> {
    if (!this.url) return 0;
    const payload = JSON.stringify(event);
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "stripe-signature": signPayload(payload, this.secret),
        },
        body: payload,
      });
      await res.arrayBuffer();
      this.deliveries.push({ event: event.id, type: event.type, status: res.status, at: Date.now() });
      return res.status;
    } catch {
      this.deliveries.push({ event: event.id, type: event.type, status: 0, at: Date.now() });
      return 0;
    }
  }

  private async deliver(event: FakeEvent, attempt: number): Promise<void> {
    const status = await this.post(event);
    if ((status >= 200 && status < 300) || attempt >= 4 || !this.url) return;
    setTimeout(() => void this.deliver(event, attempt + 1), 1000 * 2 ** attempt).unref();
  }
}
