import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PlanList } from "../../../schema/plan-list";
import { findPlan } from "../../../schema/plans";
import type { Env } from "../../../workers/env";
import { getSql } from "../../../workers/stores/db";
import { actAs, deliver, deliverAll, eventsAbout, fake, postAs } from "../../support/billing";
import { call, expectError, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const sql = () => getSql(e);
const CHECKOUT = "/v1/console/subscription-checkouts";
const newAccount = async () => (await seed({ keys: [] })).accountId;
const ledger = (acc: string) => e.LEDGER.get(e.LEDGER.idFromName(acc));
const holdOf = async (acc: string) =>
  (await sql().query("SELECT plan_id, kind FROM seat_holds WHERE account_id = $1 ORDER BY plan_id", [
    acc,
  ])) as {
    plan_id: string;
    kind: string;
  }[];

async function subscribe(acc: string, plan: string): Promise<{ session: string; sub: string }> {
  const res = await postAs(acc, CHECKOUT, { plan });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await fake(`sessions/${id}/complete`, { method: "card" });
  const [completed] = await eventsAbout(id);
  const sub = (completed!.data.object as { subscription: string }).subscription;
  expect(await deliverAll(sub, "customer.subscription.created")).toEqual([200]);
  expect(await deliverAll(id, "checkout.session.completed")).toEqual([200]);
  return { session: id, sub };
}

describe("subscriptions, seats, allowance, waiting list", () => {
  it("listPlans: the catalogue's plan list with seat counts", async () => {
    const res = await call("GET", "/v1/console/plans", { headers: await actAs(await newAccount()) });
    expect(res.status).toBe(200);
    const body = PlanList.parse(await res.json());
    expect(body.data.map((p) => p.id)).toEqual(["base", "hot", "fierce"]);
    await expectError(await call("GET", "/v1/console/plans"), 401, "invalid_session");
  });

  it("createSubscriptionCheckout: a seat held for at most an hour, in the account's currency", async () => {
    const acc = await newAccount();
    await sql().query("UPDATE accounts SET billing_currency = 'EUR' WHERE id = $1", [acc]);
    const before = Date.now();
    const res = await postAs(acc, CHECKOUT, { plan: "hot", return_path: "/plans" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, string | number>;
    expect(body).toMatchObject({
      object: "subscription_checkout",
      plan: "hot",
      currency: "EUR",
      price_cents: 4_900,
    });
    const ttl = Date.parse(body.expires_at as string) - before;
    expect(ttl).toBeGreaterThanOrEqual(1_799_000);
    expect(ttl).toBeLessThanOrEqual(3_601_000);
    expect(await holdOf(acc)).toEqual([{ plan_id: "hot", kind: "checkout" }]);
    // A second checkout renews the same hold and expires the first session; the first one's expiry does not
    // free the hold, the second's does.
    const second = (await (await postAs(acc, CHECKOUT, { plan: "hot" })).json()) as { id: string };
    expect(await deliverAll(body.id as string, "checkout.session.expired")).toEqual([200]);
    expect(await holdOf(acc)).toEqual([{ plan_id: "hot", kind: "checkout" }]);
    await fake(`sessions/${second.id}/expire`, {});
    expect(await deliverAll(second.id, "checkout.session.expired")).toEqual([200]);
    expect(await holdOf(acc)).toEqual([]);
  });

  it("active grants the weekly allowance, past_due keeps it, an upgrade moves the seat, cancel frees it", async () => {
    const acc = await newAccount();
    const { sub } = await subscribe(acc, "base");
    expect(await holdOf(acc)).toEqual([{ plan_id: "base", kind: "subscription" }]);
    expect((await ledger(acc).balance()).week_allowance_tokens).toBe(findPlan("base")!.week_allowance_tokens);
    await fake(`subscriptions/${sub}/status`, { status: "past_due" });
    await deliverAll(sub, "customer.subscription.updated");
    expect((await ledger(acc).balance()).week_allowance_tokens).toBe(findPlan("base")!.week_allowance_tokens);
    // Upgrade: Stripe's subscription now carries the hot plan.
    const [last] = (await eventsAbout(sub)).slice(-1);
    const upgraded = {
      ...last!,
      id: "evt_upgrade",
      data: {
        object: { ...last!.data.object, status: "active", metadata: { account_id: acc, plan_id: "hot" } },
      },
    };
    expect((await deliver(upgraded)).status).toBe(200);
    expect(await holdOf(acc)).toEqual([{ plan_id: "hot", kind: "subscription" }]);
    expect((await ledger(acc).balance()).week_allowance_tokens).toBe(findPlan("hot")!.week_allowance_tokens);
    const cancelled = { ...upgraded, id: "evt_cancel", type: "customer.subscription.deleted" };
    expect((await deliver(cancelled)).status).toBe(200);
    expect(await holdOf(acc)).toEqual([]);
    expect((await ledger(acc).balance()).week_allowance_tokens).toBe(0);
    // A late `updated` after `deleted` changes nothing.
    expect((await deliver(upgraded)).status).toBe(200);
    expect(await holdOf(acc)).toEqual([]);
  });

  it("a reset (25 % of the monthly price) refills the current week's allowance, once per Checkout Session", async () => {
    const acc = await newAccount();
    await expectError(await postAs(acc, "/v1/console/allowance-resets", {}), 422, "invalid_value");
    await subscribe(acc, "base"); // priced in the caller's region: none locally → USD, which the payment fixes
    const l = ledger(acc);
    const week = findPlan("base")!.week_allowance_tokens;
    await l.credit({ account_id: acc, payment_id: "seed", amount_micro_cents: 1_000_000 });
    await l.debit({
      request_id: "req_r1",
      account_id: acc,
      tokens: 600,
      amount_micro_cents: 3_000,
      test: false,
    });
    expect((await l.balance()).week_allowance_left).toBe(week - 600);
    const res = await postAs(acc, "/v1/console/allowance-resets", { return_path: "/plans" });
    expect(res.status).toBe(201);
    const reset = (await res.json()) as { id: string };
    expect(reset).toMatchObject({
      object: "allowance_reset_checkout",
      plan: "base",
      currency: "USD",
      price_cents: 525,
    });
    await fake(`sessions/${reset.id}/complete`, { method: "card" });
    expect(await deliverAll(reset.id, "checkout.session.completed", 3)).toEqual([200, 200, 200]);
    expect((await l.balance()).week_allowance_left).toBe(week);
    await l.debit({
      request_id: "req_r2",
      account_id: acc,
      tokens: 300,
      amount_micro_cents: 1_500,
      test: false,
    });
    expect(await deliverAll(reset.id, "checkout.session.completed")).toEqual([200]);
    expect((await l.balance()).week_allowance_left).toBe(week - 300);
  });

  it("sold out → 409 plan_sold_out; the waiting list's first account is invited when a seat frees (72 h)", async () => {
    const total = findPlan("fierce")!.seats_total!;
    const filler = "acc_FILLER";
    await sql().query(
      `INSERT INTO accounts (id) SELECT $1 || g FROM generate_series(1, $2::int) g ON CONFLICT DO NOTHING`,
      [filler, total],
    );
    const [subscriber, waiter, late] = [await newAccount(), await newAccount(), await newAccount()];
    const { sub } = await subscribe(subscriber, "fierce");
    const taken = (
      (await sql().query("SELECT count(*)::int AS n FROM seat_holds WHERE plan_id = 'fierce'")) as {
        n: number;
      }[]
    )[0]!.n;
    await sql().query(
      `INSERT INTO seat_holds (account_id, plan_id, kind) SELECT $1 || g, 'fierce', 'subscription'
       FROM generate_series(1, $2::int) g`,
      [filler, total - taken],
    );
    try {
      await expectError(await postAs(waiter, CHECKOUT, { plan: "fierce" }), 409, "plan_sold_out", "plan");
      const joined = await postAs(waiter, "/v1/console/waiting-list", { plan: "fierce" });
      expect(joined.status).toBe(201);
      expect(await joined.json()).toMatchObject({
        object: "waiting_list_entry",
        plan: "fierce",
        position: 1,
        invited_at: null,
      });
      await postAs(late, "/v1/console/waiting-list", { plan: "fierce" });
      await fake(`subscriptions/${sub}/status`, { status: "canceled" });
      expect(await deliverAll(sub, "customer.subscription.deleted")).toEqual([200]);
      const [hold] = (await sql().query(
        "SELECT kind, expires_at - now() > interval '71 hours' AS long FROM seat_holds WHERE account_id = $1",
        [waiter],
      )) as { kind: string; long: boolean }[];
      expect(hold).toEqual({ kind: "invitation", long: true });
      await expectError(await postAs(late, CHECKOUT, { plan: "fierce" }), 409, "plan_sold_out", "plan");
      expect((await postAs(waiter, CHECKOUT, { plan: "fierce" })).status).toBe(201);
      expect(await holdOf(waiter)).toEqual([{ plan_id: "fierce", kind: "checkout" }]);
    } finally {
      await sql().query("DELETE FROM seat_holds WHERE account_id LIKE $1", [`${filler}%`]);
    }
  });

  it("every body error of the subscription and waiting-list routes", async () => {
    const acc = await newAccount();
    for (const path of [CHECKOUT, "/v1/console/waiting-list"]) {
      await expectError(await postAs(acc, path, { plan: "gold" }), 422, "invalid_value", "plan");
      await expectError(await postAs(acc, path, { plan: "Hot!" }), 422, "invalid_value", "plan");
      await expectError(await postAs(acc, path, { plan: 1 }), 422, "invalid_type", "plan");
      await expectError(await postAs(acc, path, {}), 422, "missing_field", "plan");
      await expectError(await postAs(acc, path, { plan: "hot", seats: 2 }), 422, "unknown_field", "seats");
      await expectError(await postAs(acc, path, "{"), 400, "invalid_json");
    }
    await expectError(
      await postAs(acc, CHECKOUT, { plan: "hot", return_path: "x" }),
      422,
      "invalid_value",
      "return_path",
    );
  });
});
