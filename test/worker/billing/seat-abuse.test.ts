import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../workers/env";
import { getSql } from "../../../workers/stores/db";
import { deliverAll, fake, postAs } from "../../support/billing";
import { expectError, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const sql = () => getSql(e);
const CHECKOUT = "/v1/console/subscription-checkouts";
const newAccount = async () => (await seed({ keys: [] })).accountId;
const holdsOf = async (acc: string) =>
  (await sql().query(
    "SELECT plan_id, kind, ref FROM seat_holds WHERE account_id = $1 AND expires_at > now() ORDER BY plan_id",
    [acc],
  )) as { plan_id: string; kind: string; ref: string }[];

/** The fake Stripe's status of a Checkout Session. */
async function stripeStatus(id: string): Promise<string> {
  const res = await fetch(`${e.STRIPE_API_URL}/v1/checkout/sessions/${id}`, {
    headers: { authorization: "Bearer sk_test_local_fake" },
  });
  return ((await res.json()) as { status: string }).status;
}

async function open(acc: string, plan: string): Promise<string> {
  const res = await postAs(acc, CHECKOUT, { plan });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe("issue 45 item 3: plan seats are not held without paying", () => {
  it('"one checkout hold per account across plans": a checkout on another plan frees the first seat and expires its session', async () => {
    const acc = await newAccount();
    const base = await open(acc, "base");
    const hot = await open(acc, "hot");
    expect(await holdsOf(acc)).toEqual([{ plan_id: "hot", kind: "checkout", ref: hot }]);
    expect(await stripeStatus(base)).toBe("expired");
    expect(await stripeStatus(hot)).toBe("open");
  });

  it('"a bounded number of renewals": the same plan reopened at most twice (3 sessions), then 409 checkout_renewals_exceeded with retry-after; the hold and its session stand', async () => {
    const acc = await newAccount();
    const first = await open(acc, "base");
    const second = await open(acc, "base");
    const third = await open(acc, "base");
    expect([await stripeStatus(first), await stripeStatus(second)]).toEqual(["expired", "expired"]);
    // The expired sessions' events release nothing: the hold is the third session's.
    expect(await deliverAll(first, "checkout.session.expired")).toEqual([200]);
    expect(await holdsOf(acc)).toEqual([{ plan_id: "base", kind: "checkout", ref: third }]);
    const refused = await postAs(acc, CHECKOUT, { plan: "base" });
    const wait = Number(refused.headers.get("retry-after"));
    await expectError(refused, 409, "checkout_renewals_exceeded", "plan");
    expect(wait).toBeGreaterThan(3_000);
    expect(wait).toBeLessThanOrEqual(3_600);
    expect(await holdsOf(acc)).toEqual([{ plan_id: "base", kind: "checkout", ref: third }]);
    expect(await stripeStatus(third)).toBe("open");
    // Its own session's expiry frees the seat; a new checkout then starts a new hold.
    await fake(`sessions/${third}/expire`, {});
    expect(await deliverAll(third, "checkout.session.expired")).toEqual([200]);
    expect(await holdsOf(acc)).toEqual([]);
    await open(acc, "base");
  });

  it('"a rate limit on the route": at most 10 subscription checkouts an hour per account → 429 checkouts_per_hour with retry-after', async () => {
    const acc = await newAccount();
    const plans = ["base", "hot"];
    for (let i = 0; i < 10; i++) await open(acc, plans[i % 2]!);
    const res = await postAs(acc, CHECKOUT, { plan: "base" });
    const wait = Number(res.headers.get("retry-after"));
    await expectError(res, 429, "checkouts_per_hour");
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(3_600);
  });
});
