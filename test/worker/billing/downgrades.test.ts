import { env, SELF } from "cloudflare:test";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { findPlan } from "../../../schema/plans";
import type { Env } from "../../../workers/env";
import { getSql } from "../../../workers/stores/db";
import {
  actAs,
  deliver,
  deliverAll,
  eventsAbout,
  fake,
  postAs,
  type RecordedEvent,
} from "../../support/billing";
import { BASE, call, expectError, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const sql = () => getSql(e);
const DOWNGRADE = "/v1/console/subscription/downgrade";
const ADMIN = { authorization: "Bearer test-admin-token" };
const MONTH = 31 * 86_400;
const newAccount = async () => (await seed({ keys: [] })).accountId;
const ledger = (acc: string) => e.LEDGER.get(e.LEDGER.idFromName(acc));
const stripe = new Stripe("sk_test_local_fake", {
  httpClient: Stripe.createFetchHttpClient(),
  host: new URL(e.STRIPE_API_URL!).hostname,
  port: new URL(e.STRIPE_API_URL!).port,
  protocol: "http",
});
const holdOf = async (acc: string) =>
  (await sql().query("SELECT plan_id, kind FROM seat_holds WHERE account_id = $1 ORDER BY plan_id", [
    acc,
  ])) as { plan_id: string; kind: string }[];

interface View {
  object: "subscription";
  id: string | null;
  plan: string | null;
  status: string | null;
  current_period_end: string | null;
  pending_downgrade: {
    id: string;
    object: "subscription_downgrade";
    from_plan: string;
    plan: string;
    status: string;
    effective_at: string | null;
  } | null;
}

const viewOf = async (acc: string): Promise<View> => {
  const res = await call("GET", "/v1/console/subscription", { headers: await actAs(acc) });
  expect(res.status).toBe(200);
  return (await res.json()) as View;
};
const cancel = async (acc: string) =>
  SELF.fetch(BASE + DOWNGRADE, { method: "DELETE", headers: await actAs(acc) });

/** The account subscribes to a plan through Checkout (card), its events delivered. */
async function subscribe(acc: string, plan: string): Promise<string> {
  const res = await postAs(acc, "/v1/console/subscription-checkouts", { plan });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await fake(`sessions/${id}/complete`, { method: "card" });
  const [completed] = await eventsAbout(id);
  const sub = (completed!.data.object as { subscription: string }).subscription;
  expect(await deliverAll(sub, "customer.subscription.created")).toEqual([200]);
  expect(await deliverAll(id, "checkout.session.completed")).toEqual([200]);
  return sub;
}

/** The schedules the fake made for a subscription (from its `subscription_schedule.created` events). */
async function schedulesOf(sub: string): Promise<Stripe.SubscriptionSchedule[]> {
  const { events } = await fake<{
    events: { type: string; data: { object: { id: string; subscription: string } } }[];
  }>("events");
  const ids = events
    .filter((x) => x.type === "subscription_schedule.created" && x.data.object.subscription === sub)
    .map((x) => x.data.object.id);
  return Promise.all(ids.map((id) => stripe.subscriptionSchedules.retrieve(id)));
}

/** Delivers the newest event of a type about an object (older ones describe earlier states). */
async function deliverLatest(objectId: string, type: string): Promise<RecordedEvent> {
  const ev = (await eventsAbout(objectId)).filter((x) => x.type === type).at(-1);
  if (!ev) throw new Error(`no ${type} about ${objectId}`);
  const res = await deliver(ev);
  expect(res.status, await res.clone().text()).toBe(200);
  return ev;
}

describe("scheduled downgrades (spec: “A scheduled downgrade also holds a seat on the cheaper plan”)", () => {
  it("schedule → the period ends (test clock) → the seat moves to the cheaper plan, the allowance follows, the old plan invites its next waiting account", async () => {
    const [acc, waiter] = [await newAccount(), await newAccount()];
    const sub = await subscribe(acc, "hot");
    expect((await viewOf(acc)).plan).toBe("hot");
    const res = await postAs(acc, DOWNGRADE, { plan: "base" });
    expect(res.status).toBe(201);
    const view = (await res.json()) as View;
    expect(view).toMatchObject({ object: "subscription", id: sub, plan: "hot", status: "active" });
    expect(view.pending_downgrade).toMatchObject({
      object: "subscription_downgrade",
      from_plan: "hot",
      plan: "base",
      status: "scheduled",
    });
    // The cheaper phase starts when the current period ends (no proration).
    const stripeSub = await stripe.subscriptions.retrieve(sub);
    const periodEnd = stripeSub.items.data[0]!.current_period_end;
    expect(Date.parse(view.pending_downgrade!.effective_at!)).toBe(periodEnd * 1000);
    expect(await viewOf(acc)).toEqual(view);
    expect(await holdOf(acc)).toEqual([
      { plan_id: "base", kind: "downgrade" },
      { plan_id: "hot", kind: "subscription" },
    ]);
    const schedule = await stripe.subscriptionSchedules.retrieve(stripeSub.schedule as string);
    expect(schedule.phases.map((p) => p.metadata?.plan_id ?? null)).toEqual([null, "base"]);
    expect(schedule.phases[1]!.proration_behavior).toBe("none");
    expect(schedule.phases[1]!.start_date).toBe(periodEnd);
    await deliverLatest(schedule.id, "subscription_schedule.updated"); // of no consequence
    expect((await postAs(waiter, "/v1/console/waiting-list", { plan: "hot" })).status).toBe(201);

    await fake("clock/advance", { seconds: MONTH });
    await deliverLatest(sub, "customer.subscription.updated");
    expect(await holdOf(acc)).toEqual([{ plan_id: "base", kind: "subscription" }]);
    expect((await ledger(acc).balance()).week_allowance_tokens).toBe(findPlan("base")!.week_allowance_tokens);
    const after = await viewOf(acc);
    expect(after).toMatchObject({ id: sub, plan: "base", status: "active", pending_downgrade: null });
    expect(Date.parse(after.current_period_end!)).toBeGreaterThan(periodEnd * 1000);
    const [row] = (await sql().query("SELECT status FROM subscription_downgrades WHERE account_id = $1", [
      acc,
    ])) as { status: string }[];
    expect(row!.status).toBe("completed");
    const [invited] = (await sql().query(
      "SELECT kind FROM seat_holds WHERE account_id = $1 AND plan_id = 'hot'",
      [waiter],
    )) as { kind: string }[];
    expect(invited?.kind).toBe("invitation");
    // The schedule's cheaper phase ends a month later and releases the subscription: nothing changes.
    await fake("clock/advance", { seconds: MONTH });
    await deliverLatest(schedule.id, "subscription_schedule.released");
    expect(await holdOf(acc)).toEqual([{ plan_id: "base", kind: "subscription" }]);
  });

  it("cancel (DELETE) releases the schedule and frees the downgrade seat; a release in Stripe does too", async () => {
    const acc = await newAccount();
    const sub = await subscribe(acc, "fierce");
    expect((await postAs(acc, DOWNGRADE, { plan: "hot" })).status).toBe(201);
    const scheduleId = (await stripe.subscriptions.retrieve(sub)).schedule as string;
    const res = await cancel(acc);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ plan: "fierce", pending_downgrade: null });
    expect(await holdOf(acc)).toEqual([{ plan_id: "fierce", kind: "subscription" }]);
    expect((await stripe.subscriptions.retrieve(sub)).schedule).toBeNull();
    expect((await stripe.subscriptionSchedules.retrieve(scheduleId)).status).toBe("released");
    await deliverLatest(scheduleId, "subscription_schedule.released");
    await deliverLatest(sub, "customer.subscription.updated");
    expect(await holdOf(acc)).toEqual([{ plan_id: "fierce", kind: "subscription" }]);
    // Nothing scheduled: the same answer.
    expect((await cancel(acc)).status).toBe(200);

    // Scheduled again, then released from Stripe's side (dashboard): the event frees the seat.
    expect((await postAs(acc, DOWNGRADE, { plan: "base" })).status).toBe(201);
    const again = (await stripe.subscriptions.retrieve(sub)).schedule as string;
    await stripe.subscriptionSchedules.release(again);
    await deliverLatest(again, "subscription_schedule.released");
    expect(await holdOf(acc)).toEqual([{ plan_id: "fierce", kind: "subscription" }]);
    expect((await viewOf(acc)).pending_downgrade).toBeNull();

    // Released in Stripe, its event not yet here: cancel still ends it and frees the seat.
    expect((await postAs(acc, DOWNGRADE, { plan: "base" })).status).toBe(201);
    await stripe.subscriptionSchedules.release((await stripe.subscriptions.retrieve(sub)).schedule as string);
    const ended = await cancel(acc);
    expect(ended.status).toBe(200);
    expect(await ended.json()).toMatchObject({ plan: "fierce", pending_downgrade: null });
    expect(await holdOf(acc)).toEqual([{ plan_id: "fierce", kind: "subscription" }]);

    // A cancelled subscription frees the downgrade's seat with its own.
    expect((await postAs(acc, DOWNGRADE, { plan: "base" })).status).toBe(201);
    await fake(`subscriptions/${sub}/status`, { status: "canceled" });
    await deliverLatest(sub, "customer.subscription.deleted");
    expect(await holdOf(acc)).toEqual([]);
  });

  it("the same downgrade again answers it (200); another plan while one is scheduled → 422 invalid_value", async () => {
    const acc = await newAccount();
    await subscribe(acc, "fierce");
    const first = (await (await postAs(acc, DOWNGRADE, { plan: "hot" })).json()) as View;
    const again = await postAs(acc, DOWNGRADE, { plan: "hot" });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
    await expectError(await postAs(acc, DOWNGRADE, { plan: "base" }), 422, "invalid_value", "plan");
    expect(await holdOf(acc)).toEqual([
      { plan_id: "fierce", kind: "subscription" },
      { plan_id: "hot", kind: "downgrade" },
    ]);
  });

  it("no seat left on the cheaper plan → 409 plan_sold_out, nothing scheduled", async () => {
    const acc = await newAccount();
    await subscribe(acc, "fierce");
    const total = findPlan("hot")!.seats_total!;
    const filler = `acc_DGFILL${Date.now()}_`;
    try {
      await sql().query(
        `WITH a AS (INSERT INTO accounts (id) SELECT $1 || g FROM generate_series(1, $2::int) g RETURNING id)
         INSERT INTO seat_holds (account_id, plan_id, kind, expires_at)
         SELECT id, 'hot', 'checkout', now() + interval '1 minute' FROM a
         LIMIT greatest(0, $2::int - (SELECT count(*) FROM seat_holds WHERE plan_id = 'hot'
           AND (expires_at IS NULL OR expires_at > now())))`,
        [filler, total],
      );
      await expectError(await postAs(acc, DOWNGRADE, { plan: "hot" }), 409, "plan_sold_out", "plan");
    } finally {
      await sql().query("DELETE FROM seat_holds WHERE account_id LIKE $1", [`${filler}%`]);
    }
    expect(await holdOf(acc)).toEqual([{ plan_id: "fierce", kind: "subscription" }]);
    expect((await viewOf(acc)).pending_downgrade).toBeNull();
  });

  it("Stripe unreachable → 503 maintenance, the seat released and nothing scheduled; cancel likewise changes nothing", async () => {
    const acc = await newAccount();
    const sub = await subscribe(acc, "hot");
    await fake("fail-next", { count: 2 }); // the SDK retries once
    await expectError(await postAs(acc, DOWNGRADE, { plan: "base" }), 503, "maintenance");
    expect(await holdOf(acc)).toEqual([{ plan_id: "hot", kind: "subscription" }]);
    expect((await viewOf(acc)).pending_downgrade).toBeNull();
    expect((await stripe.subscriptions.retrieve(sub)).schedule).toBeNull();
    // Failing once the schedule exists (retrieve, product, create succeed; the phases update fails): the
    // schedule is released again, the seat freed.
    await fake("fail-next", { count: 2, after: 3 });
    await expectError(await postAs(acc, DOWNGRADE, { plan: "base" }), 503, "maintenance");
    expect(await holdOf(acc)).toEqual([{ plan_id: "hot", kind: "subscription" }]);
    expect((await stripe.subscriptions.retrieve(sub)).schedule).toBeNull();
    const [orphan] = await schedulesOf(sub);
    expect(orphan?.status).toBe("released");
    expect((await postAs(acc, DOWNGRADE, { plan: "base" })).status).toBe(201);
    await fake("fail-next", { count: 2 });
    await expectError(await cancel(acc), 503, "maintenance");
    expect((await viewOf(acc)).pending_downgrade?.status).toBe("scheduled");
    expect((await cancel(acc)).status).toBe(200);
    expect(await holdOf(acc)).toEqual([{ plan_id: "hot", kind: "subscription" }]);
  });

  it("every other error code of the routes", async () => {
    const acc = await newAccount();
    // No subscription: nothing to downgrade; the view's fields are null.
    expect(await viewOf(acc)).toEqual({
      object: "subscription",
      id: null,
      plan: null,
      status: null,
      current_period_end: null,
      pending_downgrade: null,
    });
    await expectError(await postAs(acc, DOWNGRADE, { plan: "base" }), 422, "invalid_value", "plan");
    await subscribe(acc, "hot");
    await expectError(await postAs(acc, DOWNGRADE, { plan: "hot" }), 422, "invalid_value", "plan");
    await expectError(await postAs(acc, DOWNGRADE, { plan: "fierce" }), 422, "invalid_value", "plan");
    await expectError(await postAs(acc, DOWNGRADE, { plan: "gold" }), 422, "invalid_value", "plan");
    await expectError(await postAs(acc, DOWNGRADE, { plan: "Base!" }), 422, "invalid_value", "plan");
    await expectError(await postAs(acc, DOWNGRADE, { plan: 1 }), 422, "invalid_type", "plan");
    await expectError(await postAs(acc, DOWNGRADE, {}), 422, "missing_field", "plan");
    await expectError(await postAs(acc, DOWNGRADE, [1]), 422, "invalid_type");
    await expectError(await postAs(acc, DOWNGRADE, { plan: 1, at: "now" }), 422, "unknown_field", "at");
    await expectError(await postAs(acc, DOWNGRADE, "{"), 400, "invalid_json");
    await expectError(
      await postAs(acc, DOWNGRADE, '{"plan":"base","plan":"base"}'),
      400,
      "duplicate_key",
      "/plan",
    );
    await expectError(
      await postAs(acc, DOWNGRADE, { plan: "base" }, { "content-type": "text/plain" }),
      400,
      "unsupported_media_type",
      "content-type",
    );
    await expectError(await postAs(acc, DOWNGRADE, { plan: "x".repeat(300_000) }), 413, "body_too_large");
    await expectError(
      await postAs(acc, DOWNGRADE, { plan: "base" }, { "idempotency-key": "" }),
      400,
      "invalid_header",
      "idempotency-key",
    );
    const { "x-svc-csrf": _csrf, ...noCsrf } = await actAs(acc);
    for (const method of ["POST", "DELETE"])
      await expectError(
        await call(method, DOWNGRADE, {
          headers: { ...noCsrf, "content-type": "application/json" },
          body: method === "POST" ? '{"plan":"base"}' : undefined,
        }),
        403,
        "csrf_failed",
      );
    for (const [method, path] of [
      ["GET", "/v1/console/subscription"],
      ["POST", DOWNGRADE],
      ["DELETE", DOWNGRADE],
    ] as const)
      await expectError(await call(method, path), 401, "invalid_session");
    await expectError(await call("PUT", DOWNGRADE, { headers: await actAs(acc) }), 405, "method_not_allowed");
    const headers = await actAs(acc);
    await call("POST", `/internal/accounts/${acc}/suspend`, { headers: ADMIN });
    await expectError(await call("GET", "/v1/console/subscription", { headers }), 403, "account_suspended");
    await call("POST", `/internal/accounts/${acc}/unsuspend`, { headers: ADMIN });
  });

  it("an upgrade bought through a new checkout moves the seat (“an upgrade moves the seat to the new plan”): the old subscription and its scheduled downgrade are cancelled", async () => {
    const acc = await newAccount();
    const old = await subscribe(acc, "hot");
    expect((await postAs(acc, DOWNGRADE, { plan: "base" })).status).toBe(201);
    const oldSchedule = (await stripe.subscriptions.retrieve(old)).schedule as string;
    const stale = (await eventsAbout(old)).filter((x) => x.type === "customer.subscription.updated").at(-1)!;
    await fake("clock/advance", { seconds: 5 }); // Stripe's `created` is in seconds
    const upgraded = await subscribe(acc, "fierce");
    expect(await holdOf(acc)).toEqual([
      { plan_id: "base", kind: "downgrade" },
      { plan_id: "fierce", kind: "subscription" },
    ]);
    expect((await ledger(acc).balance()).week_allowance_tokens).toBe(
      findPlan("fierce")!.week_allowance_tokens,
    );
    expect((await stripe.subscriptions.retrieve(old)).status).toBe("canceled");
    // A late event of the old subscription does not take the seat back.
    const late = await deliver({ ...stale, id: "evt_late_old" });
    expect(await late.json()).toMatchObject({ outcome: "superseded" });
    expect(await holdOf(acc)).toContainEqual({ plan_id: "fierce", kind: "subscription" });
    await deliverLatest(oldSchedule, "subscription_schedule.canceled");
    await deliverLatest(old, "customer.subscription.deleted");
    expect(await holdOf(acc)).toEqual([{ plan_id: "fierce", kind: "subscription" }]);
    expect(await viewOf(acc)).toMatchObject({ id: upgraded, plan: "fierce", pending_downgrade: null });
    expect((await ledger(acc).balance()).week_allowance_tokens).toBe(
      findPlan("fierce")!.week_allowance_tokens,
    );
  });
});
