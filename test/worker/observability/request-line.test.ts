import { env as cfEnv } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { createApp } from "../../../workers/app";
import type { DispatchOptions, Engine } from "../../../workers/clients/engine";
import type { Env } from "../../../workers/env";
import { ApiError } from "../../../workers/errors";
import { REQUEST_BLOBS, REQUEST_DOUBLES } from "../../../workers/observability/metrics";
import { buildServices } from "../../../workers/services";
import { fundedLiveAccount } from "../../support/idempotency";
import { uniformScore } from "../../support/uniform-engine";
import { bearer, VALID_DECIDE } from "../../support/worker-http";

/** A GPU stand-in that reports one attempt of 7 ms, as the pool does for a call its first worker answered. */
const engine = {
  dispatch: async (req: ScoreRequest, opts: DispatchOptions) => {
    if (opts.trace) Object.assign(opts.trace, { attempts: opts.trace.attempts + 1, ms: opts.trace.ms + 7 });
    return uniformScore(req);
  },
} as unknown as Engine;
const app = createApp((e) => ({ ...buildServices(e), engine }));

/** Env with a recording Analytics Engine dataset (the binding's `writeDataPoint`, nothing else). */
function envWithMetrics() {
  const points: { indexes?: string[]; blobs?: (string | null)[]; doubles?: number[] }[] = [];
  const env = {
    ...(cfEnv as unknown as Env),
    METRICS: { writeDataPoint: (p: (typeof points)[0]) => points.push(p) },
  };
  return { env: env as unknown as Env, points };
}

/** The request lines written while `run` runs, parsed. */
async function requestLines(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const out: string[] = [];
  const keep = (line: unknown) => out.push(String(line));
  vi.spyOn(console, "log").mockImplementation(keep);
  vi.spyOn(console, "warn").mockImplementation(keep);
  vi.spyOn(console, "error").mockImplementation(keep);
  await run();
  vi.restoreAllMocks();
  return out.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === "request");
}

afterEach(() => vi.restoreAllMocks());

describe("issue 43: one structured line per request at the edge, and its metrics point", () => {
  it("a live decide: route, status, key and account ids (never the secret), model, tokens, charge, GPU time and attempts, idempotency new → replay", async () => {
    const { key, acct } = await fundedLiveAccount();
    const { env, points } = envWithMetrics();
    const send = () =>
      app.request(
        "/v1/decide",
        {
          method: "POST",
          headers: { ...bearer(key.secret), "content-type": "application/json", "idempotency-key": "k-line" },
          body: VALID_DECIDE,
        },
        env,
      );
    let requestId = "";
    const [first] = await requestLines(async () => {
      const res = await send();
      expect(res.status).toBe(200);
      requestId = res.headers.get("x-request-id") ?? "";
    });
    expect(first).toMatchObject({
      level: "info",
      event: "request",
      request_id: requestId,
      route: "decide",
      status: 200,
      error_code: null,
      key_id: key.id,
      account_id: acct.accountId,
      mode: "live",
      served_by: "gpu",
      gpu_ms: 7,
      gpu_attempts: 1,
      idempotency: "new",
      priority: "live",
    });
    expect(first?.model).toMatch(/^svc-/);
    expect(first?.input_tokens).toBeGreaterThan(0);
    expect(first?.charge_micro_cents).toBeGreaterThan(0);
    expect(first?.latency_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(first)).not.toContain(key.secret);
    expect(JSON.stringify(first)).not.toContain("charged twice");

    const [replay] = await requestLines(async () => expect((await send()).status).toBe(200));
    expect(replay).toMatchObject({
      route: "decide",
      status: 200,
      idempotency: "replay",
      charge_micro_cents: 0,
    });

    // The metrics point of each: route as the index, blobs and doubles in the documented order.
    expect(points).toHaveLength(2);
    const blob = (p: (typeof points)[0], name: (typeof REQUEST_BLOBS)[number]) =>
      p.blobs?.[REQUEST_BLOBS.indexOf(name)];
    const double = (p: (typeof points)[0], name: (typeof REQUEST_DOUBLES)[number]) =>
      p.doubles?.[REQUEST_DOUBLES.indexOf(name)];
    expect(points[0]?.indexes).toEqual(["decide"]);
    expect(blob(points[0]!, "status")).toBe("200");
    expect(blob(points[1]!, "idempotency")).toBe("replay");
    expect(double(points[0]!, "gpu_attempts")).toBe(1);
    expect(double(points[0]!, "charge_micro_cents")).toBe(first?.charge_micro_cents);
  });

  it("refusals: a bad key → the operation id with 401 and its code, no key id; an unknown path → no route, 404", async () => {
    const { env, points } = envWithMetrics();
    const lines = await requestLines(async () => {
      await app.request("/v1/key", { headers: bearer("svc_live_not-a-key") }, env);
      await app.request("/v1/nowhere", {}, env);
    });
    expect(lines).toMatchObject([
      { route: "getKey", status: 401, error_code: "invalid_api_key", key_id: null, gpu_attempts: null },
      { route: null, status: 404, error_code: "route_not_found" },
    ]);
    expect(JSON.stringify(lines)).not.toContain("not-a-key");
    expect(points.map((p) => p.indexes?.[0])).toEqual(["getKey", "unmatched"]);
  });

  it("a 503 is written at level warn with its reason as the code (no GPU, no fallback)", async () => {
    const { key } = await fundedLiveAccount();
    const none = {
      dispatch: async () => {
        throw new ApiError("no_capacity");
      },
    } as unknown as Engine;
    const { env, points } = envWithMetrics();
    const [line] = await requestLines(async () =>
      createApp((e) => ({ ...buildServices(e), engine: none })).request(
        "/v1/decide",
        {
          method: "POST",
          headers: { ...bearer(key.secret), "content-type": "application/json" },
          body: VALID_DECIDE,
        },
        env,
      ),
    );
    expect(line).toMatchObject({
      level: "warn",
      route: "decide",
      status: 503,
      error_code: "no_capacity",
      gpu_attempts: 0,
      gpu_ms: null,
      idempotency: null,
      charge_micro_cents: 0,
    });
    expect(points[0]?.blobs?.[REQUEST_BLOBS.indexOf("error_code")]).toBe("no_capacity");
  });
});
