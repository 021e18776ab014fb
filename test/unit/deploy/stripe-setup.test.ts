// `npm run stripe:setup` on the real stripe SDK against the local Stripe fake: creates what is missing, changes
// nothing on a second run, replaces a price whose amount changed, and subscribes the webhook to exactly the
// events the Worker handles.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLANS } from "../../../schema/plans";
import { type FakeStripe, startFakeStripe } from "../../../scripts/stack/fake-stripe";
import { lookupKey, stripeFor, stripeSetup, WEBHOOK_EVENTS } from "../../../scripts/stripe-setup";
import { ROOT } from "./code-vars";

let fake: FakeStripe;
beforeAll(async () => {
  fake = await startFakeStripe();
});
afterAll(() => fake.close());

const HOOK = "https://api.svc.example.com/v1/webhooks/stripe";

describe("stripe:setup", () => {
  it("is idempotent: the first run creates, the second changes nothing", async () => {
    const stripe = stripeFor(fake.secretKey, fake.url);
    const first = await stripeSetup(stripe, { webhookUrl: HOOK });
    const currencies = Object.keys(PLANS[0]!.prices).length;
    expect(first.lines.filter((l) => l.startsWith("created product"))).toHaveLength(PLANS.length);
    expect(first.lines.filter((l) => l.startsWith("created price"))).toHaveLength(PLANS.length * currencies);
    expect(first.webhookSecret).toMatch(/^whsec_/);

    const second = await stripeSetup(stripe, { webhookUrl: HOOK });
    expect(second.lines.every((l) => l.startsWith("unchanged"))).toBe(true);
    expect(second.lines).toHaveLength(first.lines.length);
    expect(second.webhookSecret).toBeUndefined();

    const plan = PLANS[0]!;
    const [eur] = (await stripe.prices.list({ lookup_keys: [lookupKey(plan, "EUR")] })).data;
    expect(eur).toMatchObject({
      unit_amount: plan.prices.EUR.price_cents,
      currency: "eur",
      product: `svc_plan_${plan.id}`,
    });
    const [hook] = (await stripe.webhookEndpoints.list()).data;
    expect([...hook!.enabled_events].sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });

  it("a changed amount gets a new price that takes the lookup key over", async () => {
    const stripe = stripeFor(fake.secretKey, fake.url);
    const plan = PLANS[0]!;
    const key = lookupKey(plan, "EUR");
    const [old] = (await stripe.prices.list({ lookup_keys: [key] })).data;
    // As if schema/plans.ts had raised the price.
    await stripe.prices.create({
      product: `svc_plan_${plan.id}`,
      currency: "eur",
      unit_amount: 1,
      recurring: { interval: "month" },
      tax_behavior: "exclusive",
      lookup_key: key,
      transfer_lookup_key: true,
    });
    const run = await stripeSetup(stripe);
    expect(run.lines.filter((l) => l.startsWith("replaced"))).toEqual([expect.stringContaining(key)]);
    const [now] = (await stripe.prices.list({ lookup_keys: [key] })).data;
    expect(now!.unit_amount).toBe(plan.prices.EUR.price_cents);
    expect(now!.id).not.toBe(old!.id);
  });

  it("subscribes to exactly the events the Worker's webhook handles", () => {
    const dir = join(ROOT, "workers/billing");
    const code = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), "utf8"))
      .join("\n");
    const handled = new Set(
      [...code.matchAll(/"((?:checkout\.session|customer\.subscription|invoice|charge)\.[a-z_.]+)"/g)].map(
        (m) => m[1],
      ),
    );
    expect([...handled].sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });
});
