import {
  env as cfEnv,
  createExecutionContext,
  createScheduledController,
  waitOnExecutionContext,
} from "cloudflare:test";
import { ulid } from "ulid";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { UsageReport } from "../../../schema/usage";
import type { Env } from "../../../workers/env";
import worker, { CRONS } from "../../../workers/index";
import { recordUsageEvent, type UsageEvent } from "../../../workers/stores/usage";
import { sqlQuery } from "../../support/seed";
import { usageEvent } from "../../support/usage-event";
import { bearer, call, expectError, seed, VALID_DECIDE } from "../../support/worker-http";

const env = cfEnv as unknown as Env;
let reader = "";
let noScope = "";
let keyA = "";
let keyB = "";

const DAY = Date.UTC(2026, 9, 14); // 2026-10-14
const event = (accountId: string, keyId: string, at: number, over: Partial<UsageEvent> = {}): UsageEvent =>
  usageEvent(accountId, at, { key_id: keyId, ...over });

beforeAll(async () => {
  const a = await seed({
    keys: [{ mode: "live", scopes: ["usage:read"] }, { mode: "live", scopes: ["decide"] }, { mode: "live" }],
  });
  [reader, noScope] = [a.keys[0]!.secret, a.keys[1]!.secret];
  [keyA, keyB] = [a.keys[0]!.id, a.keys[2]!.id];
  for (const e of [
    event(a.accountId, keyA, DAY + 3_600_000),
    event(a.accountId, keyA, DAY + 3_600_000, { served_by: "fallback", charge_micro_cents: 500 }),
    event(a.accountId, keyB, DAY + 86_400_000 + 60_000, { input_tokens: 7, charge_micro_cents: 35 }),
    event(a.accountId, keyB, DAY + 86_400_000, {
      status: 422,
      error_code: "invalid_value",
      model: null,
      served_by: null,
      input_tokens: 0,
      charge_micro_cents: 0,
    }),
    event(a.accountId, keyA, DAY + 7_200_000, { replayed: true, charge_micro_cents: 0 }),
  ])
    await recordUsageEvent(env, e);
});

const usage = (query: string, secret = reader) =>
  call("GET", `/v1/usage${query}`, { headers: bearer(secret) });

describe("GET /v1/usage: per key, by UTC day or hour, scope usage:read", () => {
  it("by day: requests, tokens, charges, the GPU / fallback split and error requests per key; empty days as zeros", async () => {
    const res = await usage("?start=2026-10-14&end=2026-10-17");
    expect(res.status).toBe(200);
    const body = UsageReport.parse(await res.json());
    expect(body).toMatchObject({
      object: "usage",
      start: "2026-10-14",
      end: "2026-10-17",
      granularity: "day",
    });
    const a = body.data.find((k) => k.key_id === keyA)!;
    const b = body.data.find((k) => k.key_id === keyB)!;
    expect(a.points.map((p) => p.start)).toEqual([
      "2026-10-14T00:00:00Z",
      "2026-10-15T00:00:00Z",
      "2026-10-16T00:00:00Z",
    ]);
    expect(a.points[0]).toMatchObject({
      requests: 2,
      input_tokens: 200,
      charge_micro_cents: 1000,
      gpu_requests: 1,
      fallback_requests: 1,
      error_requests: 0,
    });
    expect(b.points[1]).toMatchObject({
      requests: 1,
      input_tokens: 7,
      charge_micro_cents: 35,
      error_requests: 1,
    });
    expect(a.points[2]).toMatchObject({ requests: 0, input_tokens: 0, charge_micro_cents: 0 });
  });

  it("by hour with key_id: only that key, hourly buckets", async () => {
    const res = await usage(`?start=2026-10-14&end=2026-10-15&granularity=hour&key_id=${keyA}`);
    expect(res.status).toBe(200);
    const body = UsageReport.parse(await res.json());
    expect(body.data.map((k) => k.key_id)).toEqual([keyA]);
    expect(body.data[0]!.points).toHaveLength(24);
    expect(body.data[0]!.points[1]).toMatchObject({ requests: 2 });
  });

  it.each([
    ["a missing start → 422 missing_field", "", "missing_field", "start"],
    ["a bad date → invalid_value", "?start=2026-13-01", "invalid_value", "start"],
    [
      "a bad granularity → invalid_value",
      "?start=2026-10-14&granularity=week",
      "invalid_value",
      "granularity",
    ],
    ["a malformed key_id → invalid_value", "?start=2026-10-14&key_id=nope", "invalid_value", "key_id"],
    ["an end not after start → invalid_value", "?start=2026-10-14&end=2026-10-14", "invalid_value", "end"],
    ["by day, more than 93 days → invalid_value", "?start=2026-01-01&end=2026-04-05", "invalid_value", "end"],
    [
      "by hour, more than 7 days → invalid_value",
      "?start=2026-10-01&end=2026-10-09&granularity=hour",
      "invalid_value",
      "end",
    ],
  ])("%s", async (_n, query, code, param) => {
    await expectError(await usage(query), 422, code, param);
  });

  it("a well-formed key_id of no key in the account → 404 key_not_found", async () => {
    await expectError(await usage(`?start=2026-10-14&key_id=key_${ulid()}`), 404, "key_not_found", "key_id");
  });

  it("a key without usage:read → 403 insufficient_scope", async () => {
    await expectError(await usage("?start=2026-10-14", noScope), 403, "insufficient_scope");
  });
});

describe("the roll-up repair and the raw-event pruning run on their cron triggers", () => {
  it.each([CRONS.usageRepair, CRONS.usagePrune])("%s", async (cron) => {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron }), env, ctx);
    await waitOnExecutionContext(ctx);
    const res = await usage("?start=2026-10-14&end=2026-10-17");
    expect(res.status).toBe(200);
  });
});

describe("'x-client-request-id' and the client from 'user-agent' are stored with the call's usage event", () => {
  it("kept with the event, never the content", async () => {
    const a = await seed({ keys: [{ mode: "test" }] });
    const res = await call("POST", "/v1/decide", {
      headers: {
        ...bearer(a.keys[0]!.secret),
        "content-type": "application/json",
        "x-client-request-id": "order-4711",
        "user-agent": "svc-sdk/1.2.0 node/20",
      },
      body: VALID_DECIDE,
    });
    const requestId = res.headers.get("x-request-id");
    await vi.waitFor(
      async () => {
        const rows = await sqlQuery(env)(
          "SELECT client_request_id, client_name, client_version FROM usage_events WHERE request_id = $1",
          [requestId],
        );
        expect(rows).toEqual([
          { client_request_id: "order-4711", client_name: "svc-sdk", client_version: "1.2.0" },
        ]);
      },
      { timeout: 10_000, interval: 100 },
    );
  });
});
