import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../workers/env";
import { getSql } from "../../../workers/stores/db";
import { actAs, fake, postAs } from "../../support/billing";
import { call, expectError, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const PATH = "/v1/console/checkout-sessions";
const newAccount = async () => (await seed({ keys: [] })).accountId;
const sql = () => getSql(e);

describe("POST /v1/console/checkout-sessions (createCheckoutSession)", () => {
  it("201: a Stripe Checkout Session on the fake, url to its pay page, expiry one hour out", async () => {
    const acc = await newAccount();
    const before = Date.now();
    const res = await postAs(acc, PATH, { amount_cents: 2_500, return_path: "/billing" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, string | number>;
    expect(body).toMatchObject({ object: "checkout_session", amount_cents: 2_500, currency: "EUR" });
    expect(body.id).toMatch(/^cs_test_/);
    expect(body.url).toBe(`${e.STRIPE_API_URL}/pay/${body.id}`);
    const expires = Date.parse(body.expires_at as string);
    expect(expires - before).toBeGreaterThan(3_590_000);
    expect(expires - before).toBeLessThanOrEqual(3_601_000);
    const page = await (await fetch(body.url as string)).text();
    expect(page).toContain('id="pay"');
    const [row] = await sql().query(
      "SELECT status, credit_cents, currency, price_minor FROM top_ups WHERE checkout_session_id = $1",
      [body.id],
    );
    expect(row).toEqual({ status: "open", credit_cents: 2_500, currency: "EUR", price_minor: 2_500 });
  });

  it("the EUR 500 cap of the first 30 days counts open sessions (parallel requests: test/integration/billing/top-up-cap.test.ts)", async () => {
    const acc = await newAccount();
    expect((await postAs(acc, PATH, { amount_cents: 20_000 })).status).toBe(201);
    expect((await postAs(acc, PATH, { amount_cents: 20_000 })).status).toBe(201);
    await expectError(
      await postAs(acc, PATH, { amount_cents: 20_000 }),
      422,
      "top_up_limit_exceeded",
      "amount_cents",
    );
    // 400 open + 100 more is exactly the cap; ten euros more is not.
    expect((await postAs(acc, PATH, { amount_cents: 10_000 })).status).toBe(201);
    await expectError(
      await postAs(acc, PATH, { amount_cents: 1_000 }),
      422,
      "top_up_limit_exceeded",
      "amount_cents",
    );
  });

  it("an open session past its expiry frees its amount, even before Stripe says so", async () => {
    const acc = await newAccount();
    const first = (await (await postAs(acc, PATH, { amount_cents: 50_000 })).json()) as { id: string };
    await expectError(
      await postAs(acc, PATH, { amount_cents: 1_000 }),
      422,
      "top_up_limit_exceeded",
      "amount_cents",
    );
    await sql().query(
      "UPDATE top_ups SET expires_at = now() - interval '1 second' WHERE checkout_session_id = $1",
      [first.id],
    );
    expect((await postAs(acc, PATH, { amount_cents: 1_000 })).status).toBe(201);
  });

  it("an account older than 30 days has no cap", async () => {
    const acc = await newAccount();
    await sql().query("UPDATE accounts SET created_at = now() - interval '31 days' WHERE id = $1", [acc]);
    expect((await postAs(acc, PATH, { amount_cents: 250_000 })).status).toBe(201);
    expect((await postAs(acc, PATH, { amount_cents: 250_000 })).status).toBe(201);
  });

  it("idempotency-key: same key + body → the same session (replayed); another body → 409", async () => {
    const acc = await newAccount();
    const key = { "idempotency-key": "top-up-1" };
    const a = await postAs(acc, PATH, { amount_cents: 1_000 }, key);
    const b = await postAs(acc, PATH, '{ "amount_cents" : 1000 }', key);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(((await b.json()) as { id: string }).id).toBe(((await a.json()) as { id: string }).id);
    await expectError(
      await postAs(acc, PATH, { amount_cents: 2_000 }, key),
      409,
      "idempotency_key_reused",
      "idempotency-key",
    );
    // Keys are per account.
    expect((await postAs(await newAccount(), PATH, { amount_cents: 2_000 }, key)).status).toBe(201);
    await expectError(
      await postAs(acc, PATH, { amount_cents: 1_000 }, { "idempotency-key": "with space" }),
      400,
      "invalid_header",
      "idempotency-key",
    );
  });

  it("billing currency: a USD account buys USD packs (EUR credit, USD price); other amounts → 422", async () => {
    const acc = await newAccount();
    await sql().query("UPDATE accounts SET billing_currency = 'USD' WHERE id = $1", [acc]);
    const res = await postAs(acc, PATH, { amount_cents: 2_500 });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const session = (await (
      await fetch(`${e.STRIPE_API_URL}/v1/checkout/sessions/${id}`, {
        headers: { authorization: "Bearer sk_test_local_fake" },
      })
    ).json()) as Record<string, unknown>;
    expect(session).toMatchObject({ currency: "usd", amount_subtotal: 2_800 });
    await expectError(await postAs(acc, PATH, { amount_cents: 3_000 }), 422, "invalid_value", "amount_cents");
  });

  it("Stripe failing → 503 maintenance, nothing reserved", async () => {
    const acc = await newAccount();
    await fake("fail-next", { count: 2 });
    const res = await postAs(acc, PATH, { amount_cents: 50_000 });
    await expectError(res, 503, "maintenance");
    expect(res.headers.get("retry-after")).toBe("5");
    expect((await postAs(acc, PATH, { amount_cents: 50_000 })).status).toBe(201);
  });

  it("every body and auth error the route declares", async () => {
    const acc = await newAccount();
    const bad = async (body: string, code: string, param?: string, status = 422, headers = {}) =>
      expectError(await postAs(acc, PATH, body, headers), status, code, param);
    await bad('{"amount_cents": 999}', "invalid_value", "amount_cents");
    await bad('{"amount_cents": 250001}', "invalid_value", "amount_cents");
    await bad('{"amount_cents": 10.5}', "invalid_value", "amount_cents");
    await bad('{"amount_cents": "1000"}', "invalid_type", "amount_cents");
    await bad("{}", "missing_field", "amount_cents");
    await bad('{"amount_cents": 1000, "x": 1}', "unknown_field", "x");
    await bad('{"amount_cents": 1000, "return_path": "https://evil.test"}', "invalid_value", "return_path");
    await bad('{"amount_cents": "x", "return_path": "nope"}', "invalid_value", "return_path");
    await bad("[1]", "invalid_type");
    await bad("{", "invalid_json", undefined, 400);
    await bad('{"amount_cents": 1000, "amount_cents": 1000}', "duplicate_key", "/amount_cents", 400);
    await bad('{"amount_cents": 1000}', "unsupported_media_type", "content-type", 400, {
      "content-type": "text/plain",
    });
    await bad(`{"return_path": "/${"a".repeat(300_000)}"}`, "body_too_large", undefined, 413);
  });

  it("auth: the console session (401 invalid_session), and its CSRF token on this change (403 csrf_failed)", async () => {
    const body = JSON.stringify({ amount_cents: 1_000 });
    const json = { "content-type": "application/json" };
    await expectError(await call("POST", PATH, { headers: json, body }), 401, "invalid_session");
    const { cookie } = await actAs(await newAccount());
    await expectError(
      await call("POST", PATH, { headers: { ...json, cookie: cookie! }, body }),
      403,
      "csrf_failed",
    );
  });
});
