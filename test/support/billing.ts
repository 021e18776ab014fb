// Test helper (worker tier): call the billing routes as an account, drive the run's fake Stripe, and deliver
// its signed events to the Worker.
import { env, SELF } from "cloudflare:test";
import Stripe from "stripe";
import { csrfTokenFor, startSession } from "../../workers/accounts/sessions";
import type { Env } from "../../workers/env";
import { database } from "../../workers/stores/db";
import { BASE } from "./worker-http";

const e = env as unknown as Env;
const stripe = new Stripe("sk_test_local_fake", { httpClient: Stripe.createFetchHttpClient() });

/** A console session of the account (cookie + its CSRF token), as a signed-in browser sends them. */
export async function actAs(accountId: string): Promise<Record<string, string>> {
  const session = await startSession(database(e), accountId, "cookie");
  return {
    cookie: `__Host-svc_session=${session.token}`,
    "x-svc-csrf": await csrfTokenFor(e.CONSOLE_SECRET!, session.tokenSha256),
  };
}

/** POST a JSON body to a console route as the account. */
export async function postAs(
  accountId: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return SELF.fetch(BASE + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(await actAs(accountId)), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A `/__fake/…` control of the fake Stripe. */
export async function fake<T = unknown>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${e.STRIPE_API_URL}/__fake/${path}`, {
    method: body === undefined ? "GET" : "POST",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`fake ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** An event the fake recorded. */
export interface RecordedEvent {
  id: string;
  type: string;
  data: { object: { id: string; subscription?: string | null } };
}

/** Events the fake emitted about an object (a session, or a subscription), oldest first. */
export async function eventsAbout(objectId: string): Promise<RecordedEvent[]> {
  const { events } = await fake<{ events: RecordedEvent[] }>("events");
  return events.filter((ev) => ev.data.object.id === objectId);
}

/** Posts a signed event body to the Worker's webhook (the signature made by the SDK's test helper). */
export async function deliver(event: unknown, secret = e.STRIPE_WEBHOOK_SECRET!): Promise<Response> {
  const payload = JSON.stringify(event);
  const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret });
  return SELF.fetch(`${BASE}/v1/webhooks/stripe`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": signature },
    body: payload,
  });
}

/** Delivers the fake's events of one type about an object, each `times` times in parallel; statuses. */
export async function deliverAll(objectId: string, type: string, times = 1): Promise<number[]> {
  const events = (await eventsAbout(objectId)).filter((ev) => ev.type === type);
  if (events.length === 0) throw new Error(`no ${type} event about ${objectId}`);
  const runs = events.flatMap((ev) => Array.from({ length: times }, () => deliver(ev)));
  return (await Promise.all(runs)).map((r) => r.status);
}

/** The account's ledger balance in micro-cents. */
export async function balanceOf(accountId: string): Promise<number> {
  const stub = e.LEDGER.get(e.LEDGER.idFromName(accountId));
  return (await stub.balance()).balance_micro_cents;
}
