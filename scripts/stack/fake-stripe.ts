// A local Stripe at the HTTP level for `npm start` and the tests: the real `stripe` SDK talks to it
// (STRIPE_API_URL). It keeps the Checkout Sessions, Subscriptions and Subscription Schedules it created,
// serves a hosted pay page a browser can complete, expires sessions, runs a test clock for subscriptions, and
// posts signed webhook events. stripe-mock cannot (stateless).
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import Stripe from "stripe";
import { freePort } from "./free-port";
import { guarded } from "./guarded";
import { readBody } from "./read-body";
import { type CatalogueWorld, catalogueApi } from "./stripe-fake/catalogue";
import { chargeOf, disputeCharge, type FakeCharge, refundCharge } from "./stripe-fake/charges";
import { errorReply, HttpError } from "./stripe-fake/errors";
import { parseStripeForm } from "./stripe-fake/form";
import {
  type FakeSession,
  type FakeSubscription,
  nowSeconds,
  publicSession,
  sessionFromParams,
  stripeId,
  subscriptionOf,
} from "./stripe-fake/objects";
import { payPage } from "./stripe-fake/pages";
import {
  advanceSubscriptions,
  cancelAttachedSchedule,
  createFromSubscription,
  type FakeSchedule,
  releaseSchedule,
  StripeRequestError,
  updateSchedule,
} from "./stripe-fake/schedules";
import { WebhookSender } from "./stripe-fake/webhooks";

/** A running fake: its base URL, the webhook secret it signs with, its state, and controls. */
export interface FakeStripe {
  url: string;
  webhookSecret: string;
  /** The key the Worker sends (any `sk_test_…` is accepted). */
  secretKey: string;
  sessions: Map<string, FakeSession>;
  subscriptions: Map<string, FakeSubscription>;
  schedules: Map<string, FakeSchedule>;
  webhooks: WebhookSender;
  /** Where events go (the Worker's POST /v1/webhooks/stripe); settable once the Worker runs. */
  setWebhookUrl(url: string): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res
    .writeHead(status, { "content-type": "application/json", "request-id": stripeId("req") })
    .end(JSON.stringify(body));

/** Starts the fake on 127.0.0.1 (a free port unless given). */
export async function startFakeStripe(
  opts: { port?: number; webhookUrl?: string } = {},
): Promise<FakeStripe> {
  const port = opts.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const webhookSecret = `whsec_${randomBytes(24).toString("base64url")}`;
  const sessions = new Map<string, FakeSession>();
  /** Charges of paid payment-mode sessions, by payment intent. */
  const charges = new Map<string, FakeCharge>();
  const subscriptions = new Map<string, FakeSubscription>();
  const replies = new Map<string, { status: number; body: unknown }>();
  const webhooks = new WebhookSender(webhookSecret, Stripe.API_VERSION);
  webhooks.url = opts.webhookUrl;
  let failNext = 0;
  let failAfter = 0; // requests to answer normally before the injected failures start
  // Seconds the fake's clock runs ahead of the machine's (advanced like a Stripe Test Clock); subscriptions
  // and schedules follow it, Checkout Sessions keep real time.
  let clockOffset = 0;
  const world: CatalogueWorld = {
    endpoints: new Map(),
    subscriptions,
    schedules: new Map(),
    prices: new Map(),
    products: new Map(),
    now: () => nowSeconds() + clockOffset,
    emit: (type, object) => void webhooks.emit(type, object),
  };
  const schedule = (id: string) => {
    const s = world.schedules.get(id);
    if (!s) throw new HttpError(404, `No such subscription_schedule: '${id}'`, "id", "resource_missing");
    return s;
  };

  const session = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new HttpError(404, `No such checkout.session: '${id}'`, "id");
    return s;
  };
  const subscription = (id: string) => {
    const s = subscriptions.get(id);
    if (!s) throw new HttpError(404, `No such subscription: '${id}'`, "id");
    return s;
  };
  const expire = (s: FakeSession) => {
    s.status = "expired";
    s.url = null;
    webhooks.emit("checkout.session.expired", publicSession(s));
  };
  const setSubscriptionStatus = (sub: FakeSubscription, status: string) => {
    sub.status = status;
    webhooks.emit(
      status === "canceled" ? "customer.subscription.deleted" : "customer.subscription.updated",
      sub,
    );
  };

  /** The customer paid on the hosted page: card settles now, SEPA direct debit completes unpaid. */
  const complete = (s: FakeSession, method: string) => {
    if (s.status !== "open") throw new HttpError(400, `This Checkout Session is ${s.status}.`);
    s.status = "complete";
    s.payment_status = method === "sepa_debit" ? "unpaid" : "paid";
    s.customer ??= stripeId("cus");
    if (s.mode === "payment") s.payment_intent = stripeId("pi");
    if (s.mode === "subscription") {
      const sub = subscriptionOf(s, s.customer, world.now());
      if (s.payment_status === "unpaid") sub.status = "incomplete";
      subscriptions.set(sub.id, sub);
      s.subscription = sub.id;
      webhooks.emit("customer.subscription.created", sub);
    }
    charge(s);
    webhooks.emit("checkout.session.completed", publicSession(s));
  };
  /** A payment-mode session's charge once it is paid (card at once, direct debit when it settles). */
  const charge = (s: FakeSession) => {
    if (
      s.mode === "payment" &&
      s.payment_status === "paid" &&
      s.payment_intent &&
      !charges.has(s.payment_intent)
    )
      charges.set(s.payment_intent, chargeOf(s));
  };
  const chargeOfIntent = (pi: string) => {
    const c = charges.get(pi);
    if (!c)
      throw new HttpError(404, `No charge for payment_intent: '${pi}'`, "payment_intent", "resource_missing");
    return c;
  };
  /** A delayed payment's outcome. */
  const settle = (s: FakeSession, outcome: string) => {
    if (s.status !== "complete" || s.payment_status !== "unpaid")
      throw new HttpError(400, "Nothing to settle.");
    if (outcome === "succeeded") s.payment_status = "paid";
    charge(s);
    webhooks.emit(
      `checkout.session.async_payment_${outcome === "succeeded" ? "succeeded" : "failed"}`,
      publicSession(s),
    );
    const sub = s.subscription ? subscriptions.get(s.subscription) : undefined;
    if (sub) setSubscriptionStatus(sub, outcome === "succeeded" ? "active" : "incomplete_expired");
  };

  const api = async (req: IncomingMessage, path: string[], body: string): Promise<unknown> => {
    const auth = req.headers.authorization ?? "";
    if (!/^Bearer sk_test_\S+$/.test(auth)) throw new HttpError(401, "Invalid API Key provided.");
    if (failNext > 0 && failAfter > 0) failAfter--;
    else if (failNext > 0) {
      failNext--;
      throw new HttpError(500, "Injected failure (fake).");
    }
    const params = parseStripeForm(body);
    const [, resource, id, action] = path;
    if (resource === "checkout") {
      const [, , , sid, act] = path;
      if (req.method === "POST" && sid === undefined) {
        const s = sessionFromParams(params, base);
        sessions.set(s.id, s);
        return publicSession(s);
      }
      if (req.method === "GET" && sid) return publicSession(session(sid));
      if (req.method === "POST" && sid && act === "expire") {
        const s = session(sid);
        if (s.status !== "open") throw new HttpError(400, `This Checkout Session is ${s.status}.`);
        expire(s);
        return publicSession(s);
      }
    }
    if (resource === "subscriptions" && id && action === undefined) {
      const sub = subscription(id);
      if (req.method === "GET") return sub;
      if (req.method === "DELETE") {
        if (sub.status === "canceled")
          throw new HttpError(404, `No such subscription: '${id}'`, "id", "resource_missing");
        cancelAttachedSchedule(world, sub);
        setSubscriptionStatus(sub, "canceled");
        return sub;
      }
      if (req.method === "POST") {
        if (typeof params.cancel_at_period_end === "string")
          sub.cancel_at_period_end = params.cancel_at_period_end === "true";
        if (params.metadata && typeof params.metadata === "object")
          Object.assign(sub.metadata, params.metadata as Record<string, string>);
        webhooks.emit("customer.subscription.updated", sub);
        return sub;
      }
    }
    const catalogue = catalogueApi(world, req.method ?? "GET", resource, id, params);
    if (catalogue !== undefined) return catalogue;
    if (resource === "subscription_schedules") {
      if (req.method === "POST" && id === undefined) return createFromSubscription(world, params);
      if (req.method === "GET" && id && action === undefined) return schedule(id);
      if (req.method === "POST" && id && action === undefined)
        return updateSchedule(world, schedule(id), params);
      if (req.method === "POST" && id && action === "release") return releaseSchedule(world, schedule(id));
    }
    throw new HttpError(404, `Unrecognized request URL (${req.method}: ${req.url}).`);
  };

  const control = async (path: string[], body: string): Promise<unknown> => {
    const q = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    const [, , kind, id, action] = path;
    if (kind === "events" && !id) return { events: webhooks.events, deliveries: webhooks.deliveries };
    if (kind === "events" && id && action === "deliver") {
      const event = webhooks.events.find((e) => e.id === id);
      if (!event) throw new HttpError(404, "No such event.");
      const times = Number(q.times ?? 1);
      return { statuses: await Promise.all(Array.from({ length: times }, () => webhooks.post(event))) };
    }
    if (kind === "sessions" && id && action === "complete") complete(session(id), String(q.method ?? "card"));
    else if (kind === "sessions" && id && action === "settle")
      settle(session(id), String(q.outcome ?? "succeeded"));
    else if (kind === "sessions" && id && action === "expire") expire(session(id));
    else if (kind === "payment_intents" && id && action === "refund") {
      const c = refundCharge(chargeOfIntent(id), q.amount === undefined ? undefined : Number(q.amount));
      return { ok: true, event: webhooks.emit("charge.refunded", c).id };
    } else if (kind === "payment_intents" && id && action === "dispute") {
      const dispute = disputeCharge(
        chargeOfIntent(id),
        q.reason === undefined ? undefined : String(q.reason),
      );
      return { ok: true, event: webhooks.emit("charge.dispute.created", dispute).id };
    } else if (kind === "subscriptions" && id && action === "status")
      setSubscriptionStatus(subscription(id), String(q.status));
    else if (kind === "fail-next") {
      failNext = Number(q.count ?? 1);
      failAfter = Number(q.after ?? 0);
    } else if (kind === "clock" && id === "advance") {
      clockOffset += Number(q.seconds ?? 0);
      advanceSubscriptions(world);
      return { ok: true, now: world.now() };
    } else throw new HttpError(404, "Unknown control.");
    return { ok: true };
  };

  const server = createServer(
    guarded(async (req, res) => {
      const url = new URL(req.url ?? "/", base);
      const path = url.pathname.split("/").slice(1);
      const body = await readBody(req);
      try {
        if (path[0] === "v1") {
          const key = req.headers["idempotency-key"];
          const cacheKey = typeof key === "string" && req.method === "POST" ? `${req.url}:${key}` : undefined;
          const cached = cacheKey ? replies.get(cacheKey) : undefined;
          if (cached) return json(res, cached.status, cached.body);
          const out = await api(req, path, req.method === "GET" ? url.search.slice(1) : body).catch((e) => {
            if (!(e instanceof StripeRequestError)) throw e;
            throw new HttpError(e.code === "resource_missing" ? 404 : e.status, e.message, e.param, e.code);
          });
          if (cacheKey) replies.set(cacheKey, { status: 200, body: out });
          return json(res, 200, out);
        }
        if (path[0] === "__fake") return json(res, 200, await control(["", ...path], body));
        if (path[0] === "pay" && path[1]) {
          const s = session(path[1]);
          if (req.method === "GET")
            return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(payPage(s));
          complete(s, new URLSearchParams(body).get("method") ?? "card");
          return res.writeHead(303, { location: s.success_url ?? base }).end();
        }
        throw new HttpError(404, "Not found.");
      } catch (e) {
        const reply = errorReply(e);
        return json(res, reply.status, reply.body);
      }
    }),
  );
  const sweep = setInterval(() => {
    for (const s of sessions.values()) if (s.status === "open" && s.expires_at <= nowSeconds()) expire(s);
  }, 1000);
  sweep.unref();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return {
    url: base,
    webhookSecret,
    secretKey: "sk_test_local_fake",
    sessions,
    subscriptions,
    schedules: world.schedules,
    webhooks,
    setWebhookUrl: (u) => {
      webhooks.url = u;
    },
    close: async () => {
      clearInterval(sweep);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Stripe for the local stack: the fake (unless STRIPE_SECRET_KEY names a real account) and the Worker's bindings. */
export interface LocalStripe {
  bindings: Record<string, string>;
  /** The fake's base URL (none with a real Stripe account). */
  url?: string;
  /** Points the fake's webhooks at the Worker once it runs. */
  connect(workerUrl: string): void;
  stop(): Promise<void>;
}

/** Starts the fake Stripe for `npm start`; with STRIPE_SECRET_KEY set, passes the real account through. */
export async function startLocalStripe(): Promise<LocalStripe> {
  if (process.env.STRIPE_SECRET_KEY) {
    const bindings = {
      STRIPE_SECRET_KEY: process.env.STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: process.env.STRIPE_WEBHOOK_SECRET ?? "",
    };
    return { bindings, connect: () => {}, stop: async () => {} };
  }
  const fake = await startFakeStripe();
  return {
    bindings: {
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
      STRIPE_API_URL: fake.url,
    },
    url: fake.url,
    connect: (workerUrl) => fake.setWebhookUrl(`${workerUrl}/v1/webhooks/stripe`),
    stop: fake.close,
  };
}
