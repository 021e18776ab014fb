/**
 * `STRIPE_SECRET_KEY=sk_… npm run stripe:setup -- [--webhook-url URL] [--secret-out PATH]` (docs/deploy.md,
 * step 3): the Stripe objects production needs, made with the real SDK, idempotent (run it again: only what
 * differs changes). One Product per plan (`svc_plan_<id>`, the ids the Worker's downgrade schedules use), one
 * monthly Price per plan and currency under the lookup key `svc_plan_<id>_<currency>`, and the webhook endpoint
 * with the events the Worker handles. `STRIPE_API_URL` points it at the local fake, as it does the Worker.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import Stripe from "stripe";
import { PLANS, type PlanTerms } from "../schema/plans";

/** The events `POST /v1/webhooks/stripe` acts on (workers/billing/stripe-events.ts, subscription-events.ts, chargebacks.ts). */
export const WEBHOOK_EVENTS = [
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "charge.dispute.created",
  "charge.refunded",
] as const;

export const productId = (plan: PlanTerms) => `svc_plan_${plan.id}`;
export const lookupKey = (plan: PlanTerms, currency: string) =>
  `svc_plan_${plan.id}_${currency.toLowerCase()}`;

export interface SetupReport {
  /** One line per object: `created …`, `updated …`, `unchanged …`. */
  lines: string[];
  /** The new webhook endpoint's signing secret (only when this run created it). */
  webhookSecret?: string;
}

const isMissing = (e: unknown) => (e as { code?: string }).code === "resource_missing";

async function ensureProduct(stripe: Stripe, plan: PlanTerms, out: string[]): Promise<string> {
  const id = productId(plan);
  const name = `svc ${plan.name}`;
  try {
    const p = await stripe.products.retrieve(id);
    if (p.name === name && p.metadata?.plan_id === plan.id) out.push(`unchanged product ${id}`);
    else {
      await stripe.products.update(id, { name, metadata: { plan_id: plan.id } });
      out.push(`updated product ${id}`);
    }
  } catch (e) {
    if (!isMissing(e)) throw e;
    await stripe.products.create({ id, name, metadata: { plan_id: plan.id } });
    out.push(`created product ${id}`);
  }
  return id;
}

async function ensurePrice(stripe: Stripe, plan: PlanTerms, currency: string, out: string[]): Promise<void> {
  const key = lookupKey(plan, currency);
  const amount = plan.prices[currency as keyof PlanTerms["prices"]].price_cents;
  const product = productId(plan);
  const [current] = (await stripe.prices.list({ lookup_keys: [key], limit: 1 })).data;
  const same =
    current?.active &&
    current.unit_amount === amount &&
    current.currency === currency.toLowerCase() &&
    current.recurring?.interval === "month" &&
    current.tax_behavior === "exclusive" &&
    (typeof current.product === "string" ? current.product : current.product.id) === product;
  if (same) {
    out.push(`unchanged price ${key} (${current.id})`);
    return;
  }
  // Prices are immutable: a new one takes the lookup key over; the old one stays for existing subscriptions.
  const created = await stripe.prices.create({
    product,
    currency: currency.toLowerCase(),
    unit_amount: amount,
    recurring: { interval: "month" },
    tax_behavior: "exclusive",
    lookup_key: key,
    transfer_lookup_key: Boolean(current),
    metadata: { plan_id: plan.id },
  });
  out.push(`${current ? "replaced" : "created"} price ${key} (${created.id}, ${amount} ${currency})`);
}

async function ensureWebhook(stripe: Stripe, url: string, report: SetupReport): Promise<void> {
  const wanted = [...WEBHOOK_EVENTS].sort();
  for await (const e of stripe.webhookEndpoints.list({ limit: 100 })) {
    if (e.url !== url) continue;
    if ([...e.enabled_events].sort().join() === wanted.join()) report.lines.push(`unchanged webhook ${e.id}`);
    else {
      await stripe.webhookEndpoints.update(e.id, {
        enabled_events: wanted as Stripe.WebhookEndpointUpdateParams.EnabledEvent[],
      });
      report.lines.push(`updated webhook ${e.id} (events)`);
    }
    return;
  }
  const created = await stripe.webhookEndpoints.create({
    url,
    enabled_events: wanted as Stripe.WebhookEndpointCreateParams.EnabledEvent[],
    description: "svc edge Worker (npm run stripe:setup)",
  });
  report.lines.push(`created webhook ${created.id} for ${url}`);
  if (created.secret) report.webhookSecret = created.secret;
}

/** Brings the account's products, prices and (with `webhookUrl`) webhook endpoint to what the code expects. */
export async function stripeSetup(stripe: Stripe, opts: { webhookUrl?: string } = {}): Promise<SetupReport> {
  const report: SetupReport = { lines: [] };
  for (const plan of PLANS) {
    await ensureProduct(stripe, plan, report.lines);
    for (const currency of Object.keys(plan.prices)) await ensurePrice(stripe, plan, currency, report.lines);
  }
  if (opts.webhookUrl) await ensureWebhook(stripe, opts.webhookUrl, report);
  return report;
}

/** The SDK for the key, on api.stripe.com or on `STRIPE_API_URL` (the local fake). */
export function stripeFor(key: string, apiUrl?: string): Stripe {
  const api = apiUrl ? new URL(apiUrl) : undefined;
  return new Stripe(key, {
    maxNetworkRetries: 2,
    ...(api && {
      host: api.hostname,
      port: api.port || (api.protocol === "https:" ? 443 : 80),
      protocol: api.protocol === "https:" ? "https" : "http",
    }),
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "webhook-url": { type: "string" },
      "secret-out": { type: "string", default: ".stripe-webhook-secret" },
    },
  });
  const key = process.env.STRIPE_SECRET_KEY;
  if (!key) throw new Error("set STRIPE_SECRET_KEY (sk_test_… first, sk_live_… for production)");
  const report = await stripeSetup(stripeFor(key, process.env.STRIPE_API_URL), {
    ...(values["webhook-url"] && { webhookUrl: values["webhook-url"] }),
  });
  for (const line of report.lines) console.log(`stripe:setup: ${line}`);
  if (report.webhookSecret) {
    const path = values["secret-out"] as string;
    writeFileSync(path, `${report.webhookSecret}\n`, { mode: 0o600 });
    console.log(
      `stripe:setup: the endpoint's signing secret is in ${path} (mode 600): npx wrangler secret put STRIPE_WEBHOOK_SECRET --env production < ${path}, then delete the file`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((err: unknown) => {
    console.error(`stripe:setup: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  });
