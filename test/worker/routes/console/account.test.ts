import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { Redis } from "@upstash/redis";
import { describe, expect, it, vi } from "vitest";
import { dayOf } from "../../../../schema/periods";
import worker from "../../../../workers/index";
import { getSql } from "../../../../workers/stores/db";
import { consoleCall, consoleEnv, signIn } from "../../../support/console";
import { expectError, VALID_DECIDE } from "../../../support/worker-http";

const ADMIN = { authorization: "Bearer test-admin-token" };
const sql = () => getSql(consoleEnv);

describe("the console's own reads and settings", () => {
  it("overview: balance in micro-cents and euros, tier, month-to-date tokens, next tier (from the ledger)", async () => {
    const s = await signIn();
    await consoleCall("POST", "/internal/ledger/credit", {
      headers: ADMIN,
      body: { account_id: s.accountId, amount_micro_cents: 250_000_000, payment_id: "pay_overview" },
    });
    const res = await consoleCall("GET", "/v1/console/overview", { cookie: s.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      object: "overview",
      account_id: s.accountId,
      email: s.email,
      balance_micro_cents: 250_000_000,
      balance_eur: "2.50000000",
      tier: "t1",
      month_to_date_tokens: 0,
      next_tier_at_tokens: 1_000_000_000,
      test_daily_quota_tokens: 250_000,
    });
  });

  it("playground decide runs the decide pipeline as a test caller on the account's daily test quota", async () => {
    const s = await signIn();
    const play = (body: string) =>
      consoleCall("POST", "/v1/console/playground/decide", { cookie: s.cookie, csrf: s.csrf, body });
    await expectError(
      await consoleCall("POST", "/v1/console/playground/decide", { cookie: s.cookie, body: VALID_DECIDE }),
      403,
      "csrf_failed",
    );
    await expectError(await play('{"state":"x"}'), 422, "missing_field", "questions");
    // The quota is the account's, shared with its test keys: used up → 429 test_daily_quota until 00:00 UTC.
    const redis = new Redis({
      url: consoleEnv.UPSTASH_REDIS_REST_URL!,
      token: consoleEnv.UPSTASH_REDIS_REST_TOKEN!,
    });
    await redis.set(`rl:a:${s.accountId}:test:day:${dayOf(Date.now())}`, 250_000);
    const res = await play(VALID_DECIDE);
    await expectError(res, 429, "test_daily_quota");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(60);
    await redis.del(`rl:a:${s.accountId}:test:day:${dayOf(Date.now())}`);
    // No GPU in this tier: a test caller never uses the fallback → 503 no_capacity, quota given back.
    await expectError(await play(VALID_DECIDE), 503, "no_capacity");
    // The usage event lands after the answer, with its batch (workers/stores/usage.ts).
    await vi.waitFor(
      async () => {
        const events = (await sql().query(
          "SELECT key_id, mode, status, error_code FROM usage_events WHERE account_id = $1 ORDER BY created_at",
          [s.accountId],
        )) as Record<string, unknown>[];
        expect(events.at(-1)).toMatchObject({
          key_id: `playground_${s.accountId}`,
          mode: "test",
          status: 503,
        });
      },
      { timeout: 5_000, interval: 50 },
    );
  });

  it("content logging: off by default; on with 1–30 days; off deletes what was kept", async () => {
    const s = await signIn();
    const get = async () => (await consoleCall("GET", "/v1/console/settings", { cookie: s.cookie })).json();
    const patch = (body: unknown) =>
      consoleCall("PATCH", "/v1/console/settings", { cookie: s.cookie, csrf: s.csrf, body });
    expect(await get()).toMatchObject({ content_logging: { enabled: false, retention_days: null } });
    const on = await patch({ content_logging: { enabled: true, retention_days: 3 } });
    expect(await on.json()).toMatchObject({ content_logging: { enabled: true, retention_days: 3 } });
    expect(await (await patch({ content_logging: { enabled: true } })).json()).toMatchObject({
      content_logging: { retention_days: 7 },
    });
    await expectError(
      await patch({ content_logging: { enabled: true, retention_days: 31 } }),
      422,
      "invalid_value",
      "content_logging.retention_days",
    );
    await expectError(
      await patch({ content_logging: { enabled: true, retention_days: 0 } }),
      422,
      "invalid_value",
      "content_logging.retention_days",
    );
    await expectError(
      await patch({ content_logging: { enabled: "yes" } }),
      422,
      "invalid_type",
      "content_logging.enabled",
    );
    await expectError(await patch({ content_logging: {} }), 422, "missing_field", "content_logging.enabled");
    // Several broken members: the first by the spec's precedence, whatever their order.
    await expectError(
      await patch({ content_logging: { enabled: "yes", retention_days: 99 } }),
      422,
      "invalid_value",
      "content_logging.retention_days",
    );
    await expectError(
      await patch({ content_logging: { retention_days: "x", keep: 1 } }),
      422,
      "unknown_field",
      "content_logging.keep",
    );
    await expectError(await patch({ content_logging: [] }), 422, "invalid_type", "content_logging");
    await expectError(await patch({}), 422, "missing_field", "content_logging");

    await sql().query(
      `INSERT INTO content_logs (request_id, account_id, request, decision, delete_after) VALUES ($1, $2, '{}', '{}', now() + interval '1 day')`,
      [`req_cl_${crypto.randomUUID()}`, s.accountId],
    );
    expect(await (await patch({ content_logging: { enabled: false } })).json()).toMatchObject({
      content_logging: { enabled: false, retention_days: null },
    });
    expect(await sql().query("SELECT 1 FROM content_logs WHERE account_id = $1", [s.accountId])).toHaveLength(
      0,
    );
  });

  it("the scheduled handler deletes content past its retention and expired sessions", async () => {
    const s = await signIn();
    const [gone, kept] = [`req_old_${crypto.randomUUID()}`, `req_new_${crypto.randomUUID()}`];
    await sql().query(
      `INSERT INTO content_logs (request_id, account_id, request, decision, delete_after)
       VALUES ($1, $3, '{}', '{}', now() - interval '1 second'), ($2, $3, '{}', '{}', now() + interval '1 day')`,
      [gone, kept, s.accountId],
    );
    await sql().query(
      "UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE account_id = $1",
      [s.accountId],
    );
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), consoleEnv, ctx);
    await waitOnExecutionContext(ctx);
    const left = (await sql().query("SELECT request_id FROM content_logs WHERE account_id = $1", [
      s.accountId,
    ])) as {
      request_id: string;
    }[];
    expect(left.map((r) => r.request_id)).toEqual([kept]);
    expect(
      await sql().query("SELECT 1 FROM console_sessions WHERE account_id = $1", [s.accountId]),
    ).toHaveLength(0);
  });
});

describe("operator maintenance switch", () => {
  it("on → every console route answers 503 maintenance with the switch's retry-after and changes nothing; off → back", async () => {
    const s = await signIn();
    const set = (enabled: boolean) =>
      consoleCall("PUT", "/internal/maintenance", {
        headers: ADMIN,
        body: { enabled, retry_after_seconds: 120 },
      });
    expect(await (await set(true)).json()).toMatchObject({ enabled: true, retry_after_seconds: 120 });
    try {
      const before = await sql().query("SELECT 1 FROM api_keys WHERE account_id = $1", [s.accountId]);
      const tries = [
        await consoleCall("POST", "/v1/console/keys", {
          cookie: s.cookie,
          csrf: s.csrf,
          body: { name: "k", mode: "live" },
        }),
        await consoleCall("GET", "/v1/console/session", { cookie: s.cookie }),
        await consoleCall("POST", "/v1/console/auth/codes", { body: { email: s.email } }),
        await consoleCall("POST", "/v1/console/auth/idp/token", { body: { id_token: "a.b.c" } }),
      ];
      for (const res of tries) {
        await expectError(res, 503, "maintenance");
        expect(res.headers.get("retry-after")).toBe("120");
      }
      expect(await sql().query("SELECT 1 FROM api_keys WHERE account_id = $1", [s.accountId])).toEqual(
        before,
      );
      await expectError(
        await consoleCall("PUT", "/internal/maintenance", {
          headers: ADMIN,
          body: { enabled: true, retry_after_seconds: 0 },
        }),
        422,
        "invalid_value",
        "retry_after_seconds",
      );
    } finally {
      await set(false);
    }
    expect((await consoleCall("GET", "/v1/console/session", { cookie: s.cookie })).status).toBe(200);
  });
});
