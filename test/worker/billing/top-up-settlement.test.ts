import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../workers/app";
import type { Env } from "../../../workers/env";
import { buildServices } from "../../../workers/services";
import { getSql } from "../../../workers/stores/db";
import { balanceOf, deliver, deliverAll, eventsAbout, fake, postAs } from "../../support/billing";
import { BASE, expectError, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const PATH = "/v1/console/checkout-sessions";
const EUR = 100_000_000; // micro-cents

async function openTopUp(amount: number): Promise<{ acc: string; id: string }> {
  const acc = (await seed({ keys: [] })).accountId;
  const res = await postAs(acc, PATH, { amount_cents: amount });
  expect(res.status).toBe(201);
  return { acc, id: ((await res.json()) as { id: string }).id };
}

const statusOf = async (id: string) =>
  (
    (await getSql(e).query("SELECT status FROM top_ups WHERE checkout_session_id = $1", [id])) as {
      status: string;
    }[]
  )[0]?.status;

describe("Stripe webhook: top-up settlement", () => {
  it("card: completed + paid credits the recorded net EUR amount (never amount_total) once, 5 parallel deliveries", async () => {
    const { acc, id } = await openTopUp(2_500);
    await fake(`sessions/${id}/complete`, { method: "card" });
    const [completed] = await eventsAbout(id);
    expect(completed!.type).toBe("checkout.session.completed");
    expect(completed!.data.object).toMatchObject({ payment_status: "paid", amount_total: 3_000 }); // 20 % VAT
    expect(await deliverAll(id, "checkout.session.completed", 5)).toEqual([200, 200, 200, 200, 200]);
    expect(await balanceOf(acc)).toBe(25 * EUR);
    expect(await statusOf(id)).toBe("paid");
    const [account] = await getSql(e).query("SELECT billing_currency FROM accounts WHERE id = $1", [acc]);
    expect(account).toEqual({ billing_currency: "EUR" });
    // The paid top-up still counts against the cap: 25 + 475 = 500, then nothing more.
    expect((await postAs(acc, PATH, { amount_cents: 47_500 })).status).toBe(201);
    await expectError(
      await postAs(acc, PATH, { amount_cents: 1_000 }),
      422,
      "top_up_limit_exceeded",
      "amount_cents",
    );
  });

  it("SEPA direct debit: completed unpaid credits nothing; async_payment_succeeded credits; completed-then-succeeded and redeliveries credit once", async () => {
    const { acc, id } = await openTopUp(10_000);
    await fake(`sessions/${id}/complete`, { method: "sepa_debit" });
    expect(await deliverAll(id, "checkout.session.completed", 3)).toEqual([200, 200, 200]);
    expect(await balanceOf(acc)).toBe(0);
    expect(await statusOf(id)).toBe("processing");
    await fake(`sessions/${id}/settle`, { outcome: "succeeded" });
    expect(await deliverAll(id, "checkout.session.async_payment_succeeded", 5)).toEqual([
      200, 200, 200, 200, 200,
    ]);
    expect(await deliverAll(id, "checkout.session.completed", 2)).toEqual([200, 200]);
    expect(await balanceOf(acc)).toBe(100 * EUR);
    expect(await statusOf(id)).toBe("paid");
  });

  it("SEPA failed → marked failed (its amount freed), nothing credited", async () => {
    const { acc, id } = await openTopUp(50_000);
    await fake(`sessions/${id}/complete`, { method: "sepa_debit" });
    await deliverAll(id, "checkout.session.completed");
    await expectError(
      await postAs(acc, PATH, { amount_cents: 1_000 }),
      422,
      "top_up_limit_exceeded",
      "amount_cents",
    );
    await fake(`sessions/${id}/settle`, { outcome: "failed" });
    expect(await deliverAll(id, "checkout.session.async_payment_failed")).toEqual([200]);
    expect(await statusOf(id)).toBe("failed");
    expect(await balanceOf(acc)).toBe(0);
    expect((await postAs(acc, PATH, { amount_cents: 1_000 })).status).toBe(201);
  });

  it("expired → marked expired, its amount freed", async () => {
    const { acc, id } = await openTopUp(50_000);
    await fake(`sessions/${id}/expire`, {});
    expect(await deliverAll(id, "checkout.session.expired")).toEqual([200]);
    expect(await statusOf(id)).toBe("expired");
    expect((await postAs(acc, PATH, { amount_cents: 50_000 })).status).toBe(201);
  });

  it("a bad or missing signature → 400 invalid_header; nothing credited", async () => {
    const { acc, id } = await openTopUp(1_000);
    await fake(`sessions/${id}/complete`, { method: "card" });
    const [event] = await eventsAbout(id);
    await expectError(await deliver(event, "whsec_wrong"), 400, "invalid_header", "stripe-signature");
    const unsigned = await SELF.fetch(`${BASE}/v1/webhooks/stripe`, {
      method: "POST",
      body: JSON.stringify(event),
    });
    await expectError(unsigned, 400, "invalid_header", "stripe-signature");
    expect(await balanceOf(acc)).toBe(0);
  });

  it("a failure while handling answers 5xx (Stripe retries) and the retry credits once", async () => {
    const { acc, id } = await openTopUp(1_000);
    await fake(`sessions/${id}/complete`, { method: "card" });
    const [event] = await eventsAbout(id);
    const broken = createApp((env2) => ({
      ...buildServices(env2),
      ledger: () => ({ credit: () => Promise.reject(new Error("ledger down (injected)")) }) as never,
    }));
    const { default: Stripe } = await import("stripe");
    const payload = JSON.stringify(event);
    const signature = await new Stripe("sk_test_x").webhooks.generateTestHeaderStringAsync({
      payload,
      secret: e.STRIPE_WEBHOOK_SECRET!,
    });
    const res = await broken.request(
      "/v1/webhooks/stripe",
      { method: "POST", body: payload, headers: { "stripe-signature": signature } },
      e,
    );
    expect(res.status).toBe(500);
    expect(await statusOf(id)).toBe("open");
    expect((await deliver(event)).status).toBe(200);
    expect(await balanceOf(acc)).toBe(10 * EUR);
  });
});
