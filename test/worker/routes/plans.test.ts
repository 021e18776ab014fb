import { env as cfEnv } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PlanList } from "../../../schema/plan-list";
import { createApp } from "../../../workers/app";
import { forgetSeatCounts } from "../../../workers/billing/plan-list";
import type { Env } from "../../../workers/env";
import { sqlQuery } from "../../support/seed";
import { expectError, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
const app = createApp();
let n = 0;
/** A request from its own client address (each test its own, so the per-address limit starts fresh). */
const plans = (headers: Record<string, string> = {}, method = "GET", address = `198.51.100.${++n}`) =>
  app.request("/v1/plans", { method, headers: { "cf-connecting-ip": address, ...headers } }, env);

describe("GET /v1/plans (listPublicPlans): no authentication, any origin without credentials", () => {
  it("answers the plan list without a key; CORS '*' and never allow-credentials; x-client-request-id echoed", async () => {
    const res = await plans({
      origin: "https://marketing.example",
      "x-client-request-id": "mkt-1",
      cookie: "__Host-svc_session=x",
    });
    expect(res.status).toBe(200);
    const list = PlanList.parse(await res.json());
    expect(list.data.map((p) => p.id)).toEqual(["base", "hot", "fierce"]);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("x-client-request-id")).toBe("mkt-1");
    expect(res.headers.get("cache-control")).toBe("public, max-age=5");
  });

  it("a preflight is answered (204) for any origin, without credentials", async () => {
    const res = await plans(
      { origin: "https://marketing.example", "access-control-request-method": "GET" },
      "OPTIONS",
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("GET");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("ETag and If-None-Match → 304; seats taken come from Postgres, at most 10 seconds old", async () => {
    forgetSeatCounts();
    const first = await plans();
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await plans({ "if-none-match": etag })).status).toBe(304);
    const before = PlanList.parse(await first.json()).data.find((p) => p.id === "fierce")!;
    const holder = await seed({ keys: [] });
    await sqlQuery(env)(
      "INSERT INTO seat_holds (account_id, plan_id, kind, expires_at) VALUES ($1, 'fierce', 'checkout', now() + interval '1 hour')",
      [holder.accountId],
    );
    forgetSeatCounts(); // the isolate keeps counts 5 s; max-age 5 keeps every copy within the spec's 10 s
    const after = await plans({ "if-none-match": etag });
    expect(after.status).toBe(200);
    const fierce = PlanList.parse(await after.json()).data.find((p) => p.id === "fierce")!;
    expect(fierce.seats_taken).toBe(before.seats_taken + 1);
    expect(fierce.seats_left).toBe(before.seats_left! - 1);
  });

  it("'at most 120 requests a minute per client address' → 429 requests_per_minute with retry-after", async () => {
    const address = "203.0.113.77";
    // Sent together, so that all 120 land in one minute's window even on a slow, loaded machine.
    const allowed = await Promise.all(Array.from({ length: 120 }, () => plans({}, "GET", address)));
    expect(allowed.map((r) => r.status)).toEqual(Array(120).fill(200));
    const refused = await plans({}, "GET", address);
    const err = await expectError(refused, 429, "requests_per_minute");
    expect(err.type).toBe("rate_limited");
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait >= 1 && wait <= 60).toBe(true);
    expect((await plans({}, "GET", "203.0.113.78")).status).toBe(200); // another address is not affected
  });
});
