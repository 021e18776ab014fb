// Slow lane (`npm run test:slow`, a CI step of its own): the largest request the catalogue allows, end to
// end through the edge and the REAL GPU worker with its default context. The edge's deadline comes from the
// worker's measured speed, under the 15-minute dispatch ceiling, while the call's slot and idempotency lease are
// renewed (issue 30). CI runs it on svc-1.4.0 (SmolLM2-135M, ~1–2 minutes here); `MAX_REQUEST_MODEL=svc-1`
// runs it on the default alias (svc-1.5.1, the 1.5B model: many minutes on a 2-core CPU; its time is in
// docs/benchmarks.md).
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../gpu-worker/src/spawn-worker";
import type { EdgeWorker } from "../../scripts/stack/edge-worker";
import { balanceOf, credit, decide, GPU_SECRET, seed, startEdge } from "../support/money-harness";

// A client that waits as long as the ceiling: fetch's default gives up on headers after 300 s.
const patient = new Agent({ headersTimeout: 20 * 60_000, bodyTimeout: 20 * 60_000 });
async function patientDecide(edgeUrl: string, secret: string, body: unknown) {
  const res = await undiciFetch(`${edgeUrl}/v1/decide`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    dispatcher: patient,
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown>, text };
}

let gpu: RunningWorker;
let edge: EdgeWorker;

beforeAll(async () => {
  gpu = await startWorker({ GPU_SIGNING_SECRET: GPU_SECRET, SVC_THREADS: "2", SVC_LANES: "1" });
  edge = await startEdge({ gpuUrls: [gpu.url] });
}, 300_000);
afterAll(async () => {
  await edge?.stop();
  await gpu?.stop();
});

/** A state of varied prose just under 16,384 billable tokens together with the questions below. */
function maximalState(): string {
  const sentence = (i: number) =>
    `Ticket ${i}: the customer from office ${i % 17} wrote that order ${1000 + i} arrived ${["late", "broken", "on time", "twice"][i % 4]}. `;
  let s = "";
  for (let i = 0; s.length < 60_000; i++) s += sentence(i);
  return s.slice(0, 60_000);
}

describe("'Every request the spec allows is served' (slow lane, real model)", () => {
  it("a request near 16,384 billable tokens with 32 questions is answered by the GPU within the ceiling, billed exactly", async () => {
    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    await credit(edge.url, acct.accountId, 1_000_000_000);
    const questions = Object.fromEntries(
      Array.from({ length: 32 }, (_, i) => [
        `q${i}`,
        { type: "check", instructions: `Does ticket ${i} report a broken order?` },
      ]),
    );
    let state = maximalState();
    const model = process.env.MAX_REQUEST_MODEL ?? "svc-1.4.0";
    // A small call first, as any live pool has served: the edge learns the worker's measured speed and takes
    // the long call's deadline from it (issue 30) instead of the fixed per-token guess.
    const warm = await decide(edge.url, secret, { model, state: "warm up", questions, fallback: "never" });
    expect(warm.status, warm.text).toBe(200);
    const started = performance.now();
    let res = await patientDecide(edge.url, secret, { model, state, questions, fallback: "never" });
    // Trim the state until the request fits the billable maximum exactly as the edge counts it.
    while (res.status === 413) {
      state = state.slice(0, Math.floor(state.length * 0.97));
      res = await patientDecide(edge.url, secret, { model, state, questions, fallback: "never" });
    }
    const warmCharge = (warm.json.usage as { charge_micro_cents: number }).charge_micro_cents;
    const balance = async () =>
      ((await balanceOf(edge.url, secret)).balance_micro_cents as number) + warmCharge;
    console.log(
      `max-request on ${model}: ${res.status} after ${Math.round((performance.now() - started) / 1000)} s`,
    );
    expect(res.status, res.text).toBe(200);
    const usage = res.json.usage as { input_tokens: number; charge_micro_cents: number };
    expect(usage.input_tokens).toBeGreaterThan(14_000);
    expect(usage.input_tokens).toBeLessThanOrEqual(16_384);
    expect(res.json).toMatchObject({ served_by: "gpu" });
    expect(Object.keys(res.json.answers as object)).toHaveLength(32);
    expect(await balance()).toBe(1_000_000_000 - usage.charge_micro_cents);
  }, 1_200_000);
});
