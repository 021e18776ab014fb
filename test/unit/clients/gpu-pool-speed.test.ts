import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { Engine } from "../../../workers/clients/engine";
import {
  clampRetryAfter,
  LOAD_HEADER,
  speedDeadlineMs,
  type WorkerLoad,
} from "../../../workers/clients/gpu-load";
import { GpuPool, GpuPoolError } from "../../../workers/clients/gpu-pool";
import { ApiError } from "../../../workers/errors";
import { endSigned, endSignedReady } from "../../support/signed-answer";

// A worker that reports its speed and queue like gpu-worker/src/server.ts (header on answers, `load` on /readyz).
let calls = 0;
let probes = 0;
let load: WorkerLoad = { tokens_per_second: 200, queued_tokens: 0, wait_tokens: 0, lanes: 2 };
const worker: Server = createServer(async (req, res) => {
  if (req.url === "/readyz") {
    probes++;
    const ready = {
      ready: true,
      numerics_class: "cpu-a",
      models: ["svc-1.4.0"],
      load: { "svc-1.4.0": load },
    };
    return endSignedReady(res, "secret-secret-secret", url, JSON.stringify(ready));
  }
  calls++;
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const { request_id } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ScoreRequest;
  const answer = JSON.stringify({
    model: "svc-1.4.0",
    calibration: "cal-20261123-2",
    answers: [],
    meter: { tokens_evaluated: 1, tokens_reused: 0 },
    numerics_class: "cpu-a",
  });
  await endSigned(res, "secret-secret-secret", url, request_id, answer, {
    [LOAD_HEADER]: JSON.stringify(load),
  });
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((r) => worker.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
});
afterAll(() => {
  worker.closeAllConnections();
  worker.close();
});
beforeEach(() => {
  calls = 0;
  probes = 0;
  load = { tokens_per_second: 200, queued_tokens: 0, wait_tokens: 0, lanes: 2 };
});

const req = (numerics_class?: string): ScoreRequest => ({
  request_id: "req_speed",
  model: "svc-1.4.0",
  state: "s",
  questions: [],
  ...(numerics_class && { numerics_class }),
});

describe("deadlines from measured speed (issue 30)", () => {
  it("a call's deadline is 10 s + 3 × (queued wait + estimated run) at the worker's measured speed", () => {
    expect(speedDeadlineMs(100, undefined)).toBeNull();
    expect(speedDeadlineMs(100, { ...load, tokens_per_second: 0 })).toBeNull();
    const idle = speedDeadlineMs(100, load) as number;
    const queued = speedDeadlineMs(100, { ...load, wait_tokens: 2000 }) as number;
    expect(idle).toBeGreaterThan(10_000);
    expect(queued - idle).toBeCloseTo((3_000 * 2000) / 200);
    // Twice as fast → the variable part halves.
    expect((speedDeadlineMs(100, { ...load, tokens_per_second: 400 }) as number) - 10_000).toBeCloseTo(
      (idle - 10_000) / 2,
    );
  });

  it("retry-after is clamped to the spec's 1–60 s", () => {
    expect([0, 0.2, 7.1, 59.5, 600].map(clampRetryAfter)).toEqual([1, 1, 8, 60, 60]);
  });
});

describe("honest refusals: no_capacity at once, retry-after = queued work ÷ speed", () => {
  it("a worker whose last answer reported a queue longer than the deadline is not called; the refusal says when", async () => {
    const pool = new GpuPool([url], "secret-secret-secret");
    load = { tokens_per_second: 100, queued_tokens: 4000, wait_tokens: 3000, lanes: 2 };
    await pool.score(req(), { tokens: 10, deadlineAt: Date.now() + 240_000 }); // learns the load: 30 s queued
    expect(calls).toBe(1);
    const t0 = Date.now();
    const err = await pool.score(req(), { tokens: 10, deadlineAt: Date.now() + 20_000 }).catch((e) => e);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(err).toBeInstanceOf(GpuPoolError);
    expect(err).toMatchObject({ reason: "no_capacity", retryAfter: 30 });
    expect(calls).toBe(1);
    // Within a deadline the queue allows, the call goes through.
    await pool.score(req(), { tokens: 10, deadlineAt: Date.now() + 40_000 });
    expect(calls).toBe(2);
  });

  it("the load on /readyz counts too (a replay's probe), and a huge queue → retry-after 60", async () => {
    load = { tokens_per_second: 10, queued_tokens: 99_000, wait_tokens: 90_000, lanes: 1 };
    const pool = new GpuPool([url], "secret-secret-secret");
    const err = await pool
      .score(req("cpu-a"), { tokens: 10, deadlineAt: Date.now() + 240_000 })
      .catch((e) => e);
    expect(err).toMatchObject({ reason: "no_capacity", retryAfter: 60 });
    expect(calls).toBe(0);
  });

  it("Engine.dispatch turns it into 503 no_capacity with the pool's retry-after (no fallback allowed)", async () => {
    load = { tokens_per_second: 100, queued_tokens: 1200, wait_tokens: 1200, lanes: 2 };
    const pool = new GpuPool([url], "secret-secret-secret");
    await pool.score(req(), { tokens: 10 });
    // 12 s queued: over a deadline shortened for the test through the pool's own check.
    const engine = new Engine(pool, null);
    const spy = pool.score.bind(pool);
    pool.score = (r, b) => spy(r, { ...b, deadlineAt: Date.now() + 5_000 });
    const err = await engine.dispatch(req(), { fallback: null, tokens: 10 }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "no_capacity", status: 503, options: { retryAfter: 12 } });
  });

  it("a worker that never reported a speed keeps the fixed deadline and is called", async () => {
    const pool = new GpuPool([url], "secret-secret-secret");
    load = { tokens_per_second: 0, queued_tokens: 0, wait_tokens: 0, lanes: 2 };
    await pool.score(req(), { tokens: 10, timeoutMs: 5_000, deadlineAt: Date.now() + 1_000 });
    await pool.score(req(), { tokens: 10, timeoutMs: 5_000, deadlineAt: Date.now() + 1_000 });
    expect(calls).toBe(2);
  });
});

describe("the first call to a worker already has its measured deadline", () => {
  it("its speed is asked on /readyz once before the first call (not the fixed per-token guess a slow version outlasts)", async () => {
    load = { tokens_per_second: 100, queued_tokens: 4000, wait_tokens: 3000, lanes: 2 };
    const pool = new GpuPool([url], "secret-secret-secret");
    const err = await pool.score(req(), { tokens: 10, deadlineAt: Date.now() + 20_000 }).catch((e) => e);
    expect(probes).toBe(1);
    expect(calls).toBe(0); // the load it learned says the queue outlasts this deadline
    expect(err).toMatchObject({ reason: "no_capacity", retryAfter: 30 });
    await pool.score(req(), { tokens: 10, deadlineAt: Date.now() + 240_000 });
    expect([probes, calls]).toEqual([1, 1]);
  });
});

describe("a reported queue expires with time", () => {
  it("the wait shrinks by the time since the report, so a client retrying as told is served", async () => {
    const { waitSeconds } = await import("../../../workers/clients/gpu-load");
    const l = { tokens_per_second: 100, queued_tokens: 3000, wait_tokens: 3000, lanes: 2 };
    expect(waitSeconds(l, 0, 0)).toBe(30);
    expect(waitSeconds(l, 0, 12_000)).toBe(18);
    expect(waitSeconds(l, 0, 31_000)).toBe(0);
  });
});
