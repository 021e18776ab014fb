// The money path through the REAL GPU worker process (CPU, the small model: svc-1.4.0 only, issue 54): a billed
// decision, a byte-identical GPU replay, and the worker process killed mid-request → 503, full refund. What the
// default version's own answers prove is in gpu-worker/everyday-cases and stack/start.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../../gpu-worker/src/spawn-worker";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import {
  balanceOf,
  credit,
  DECIDE_BODY,
  decide,
  GPU_SECRET,
  seed,
  startEdge,
} from "../../support/money-harness";

const MODEL = "svc-1.4.0";
const BODY = { ...DECIDE_BODY, model: MODEL, fallback: "never" };
let gpu: RunningWorker;
let edge: EdgeWorker;

beforeAll(async () => {
  gpu = await startWorker({
    GPU_SIGNING_SECRET: GPU_SECRET,
    SVC_THREADS: "1",
    SVC_CONTEXT_SIZE: "4096",
    SVC_MODEL_VERSION: MODEL,
  });
  edge = await startEdge({ gpuUrls: [gpu.url] });
}, 180_000);
afterAll(async () => {
  await edge?.stop();
  await gpu?.stop();
});

/** Resolves once the worker has admitted a score request (its `/metrics` in-flight gauge), so a kill lands mid-request. */
async function scoring(url: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const metrics = await (await fetch(`${url}/metrics`)).text();
    if (/^svc_engine_in_flight [1-9]/m.test(metrics)) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("the GPU worker never admitted the request");
}

describe("through the real GPU worker", () => {
  it("'a GPU original is recomputed on the original exact version and is byte-identical'; billed once", async () => {
    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    await credit(edge.url, acct.accountId, 100_000_000);
    const a = await decide(edge.url, secret, BODY, { "idempotency-key": "gpu-1" });
    expect(a.status, a.text).toBe(200);
    expect(a.json).toMatchObject({ object: "decision", served_by: "gpu", model: MODEL });
    expect(a.json.id).toBe(a.headers.get("x-request-id"));
    const usage = a.json.usage as { input_tokens: number; charge_micro_cents: number };
    expect(usage.charge_micro_cents).toBe(usage.input_tokens * 5);
    expect((await balanceOf(edge.url, secret)).balance_micro_cents).toBe(
      100_000_000 - usage.charge_micro_cents,
    );

    const b = await decide(edge.url, secret, BODY, { "idempotency-key": "gpu-1" });
    expect(b.status).toBe(200);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.text).toBe(a.text);
    expect((await balanceOf(edge.url, secret)).balance_micro_cents).toBe(
      100_000_000 - usage.charge_micro_cents,
    );
  });

  it("GPU worker process killed mid-request → 503 no_capacity, balance refunded in full before the answer", async () => {
    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    await credit(edge.url, acct.accountId, 100_000_000);
    const longState = { notes: "The weather report mentions rain, wind and cold. ".repeat(150) };
    const pending = decide(edge.url, secret, { ...BODY, state: longState });
    await scoring(gpu.url);
    gpu.child.kill("SIGKILL");
    const r = await pending;
    expect(r.status).toBe(503);
    expect((r.json.error as { code: string }).code).toBe("no_capacity");
    expect((await balanceOf(edge.url, secret)).balance_micro_cents).toBe(100_000_000);
  });
});
