import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOAD_HEADER } from "../../../gpu-worker/src/server";
import { type RunningWorker, startWorker } from "../../../gpu-worker/src/spawn-worker";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { signRequest } from "../../../schema/signing";
import { checkQuestion as check } from "../../support/score-questions";

// Issue 30: the real worker on the real model with 2 lanes × 1 thread (the default on 2 cores), svc-1.4.0 only.
const SECRET = "test-secret-lanes";
let w: RunningWorker;
beforeAll(async () => {
  w = await startWorker({
    GPU_SIGNING_SECRET: SECRET,
    SVC_MODEL_VERSION: "svc-1.4.0",
    SVC_THREADS: "1",
    SVC_LANES: "2",
    SVC_SEQUENCES: "2",
    SVC_CONTEXT_SIZE: "4096",
  });
});
afterAll(async () => {
  await w?.stop();
});

let n = 0;
const body = (state: string, questions: ScoreQuestion[]) =>
  JSON.stringify({ request_id: `l${++n}`, model: "svc-1.4.0", state, questions });
const short = () =>
  body("Order 1182: two lamps, one returned, refund pending.", [
    check("c", "Was something returned?"),
    {
      id: "p",
      type: "pick",
      instructions: "What happened?",
      criteria: [],
      options: [
        { label: "refund", description: null },
        { label: "new order", description: null },
      ],
    },
  ]);
// ~2,400 tokens of state: long enough to hold one lane for many seconds, short enough for a loaded CI.
const longState = Array.from(
  { length: 120 },
  (_, i) => `Ticket ${i}: the customer wrote again about parcel ${1000 + i}, still not delivered.`,
).join(" ");
const long = () => body(longState, [check("d", "Was every parcel delivered?")]);

async function timed(b: string): Promise<{ status: number; text: string; ms: number; load: string | null }> {
  const t0 = performance.now();
  const res = await w.score(b);
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - t0, load: res.headers.get(LOAD_HEADER) };
}

describe("lanes: one long request does not stop the worker (issue 30)", () => {
  it("short requests answer 200 well before a long one in flight, with the bytes they have alone", async () => {
    const alone = await timed(short());
    expect(alone.status).toBe(200);
    // Every answer carries the version's measured speed and queued work, outside the (deterministic) body.
    expect(JSON.parse(alone.load as string)).toMatchObject({
      lanes: 2,
      tokens_per_second: expect.any(Number),
    });
    expect(JSON.parse(alone.load as string).tokens_per_second).toBeGreaterThan(0);

    const longRun = timed(long());
    await new Promise((r) => setTimeout(r, 500));
    const during = (await (await fetch(`${w.url}/readyz`)).json()) as {
      load: Record<string, { queued_tokens: number; wait_tokens: number }>;
    };
    // The long request is queued work of its lane; the other lane is free.
    expect(during.load["svc-1.4.0"]?.queued_tokens).toBeGreaterThan(1000);
    expect(during.load["svc-1.4.0"]?.wait_tokens).toBe(0);

    const shorts: Awaited<ReturnType<typeof timed>>[] = [];
    for (let i = 0; i < 4; i++) shorts.push(await timed(short()));
    const longDone = await longRun;
    expect(longDone.status).toBe(200);
    for (const s of shorts) {
      expect(s.status).toBe(200);
      // Byte-identical to the answer served alone (another lane, while the long one was being evaluated).
      expect(s.text).toBe(alone.text);
    }
    const sorted = shorts.map((s) => s.ms).sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length / 2)] as number;
    console.log(
      `lanes: short alone ${Math.round(alone.ms)} ms; during a long one p50 ${Math.round(p50)} ms, max ${Math.round(sorted.at(-1) as number)} ms; long ${Math.round(longDone.ms)} ms`,
    );
    // The shorts were all answered while the long one was still running.
    expect(shorts.reduce((t, s) => t + s.ms, 0)).toBeLessThan(longDone.ms);
    expect(p50).toBeLessThan(longDone.ms / 4);
  }, 120_000);

  it("a request served while its lane interleaved another's chunks gives the bytes it gives alone", async () => {
    const medium = (k: number) =>
      body(
        `Note ${k}: ${"the shipment left the depot late and the client asked for a refund. ".repeat(12)}`,
        [check("r", "Did the client ask for a refund?")],
      );
    const alone = await timed(medium(1));
    // Six at once on 2 lanes × 2 sequences: each lane time-slices two requests at chunk boundaries.
    const together = await Promise.all(
      [medium(1), medium(2), medium(3), medium(1), medium(4), medium(1)].map(timed),
    );
    for (const t of together) expect(t.status).toBe(200);
    for (const i of [0, 3, 5]) expect(together[i]?.text).toBe(alone.text);
  }, 120_000);

  it("a caller that goes away mid-prefill frees its lane at the next chunk: in-flight drops, queue empties", async () => {
    const b = long();
    const headers = await signRequest(SECRET, { method: "POST", origin: w.url, path: "/v1/score", body: b });
    const gone = new AbortController();
    const call = fetch(`${w.url}/v1/score`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: b,
      signal: gone.signal,
    }).catch((e: unknown) => e);
    const gauge = async () => {
      const text = await (await fetch(`${w.url}/metrics`)).text();
      return Number(/^svc_engine_in_flight (\d+)$/m.exec(text)?.[1]);
    };
    const t0 = Date.now();
    while ((await gauge()) === 0 && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 50));
    expect(await gauge()).toBe(1);
    await new Promise((r) => setTimeout(r, 1_500));
    gone.abort();
    expect(await call).toBeInstanceOf(Error);
    const t1 = Date.now();
    while ((await gauge()) > 0 && Date.now() - t1 < 20_000) await new Promise((r) => setTimeout(r, 50));
    const freedMs = Date.now() - t1;
    console.log(`lanes: cancelled mid-prefill, in-flight 0 after ${freedMs} ms`);
    expect(await gauge()).toBe(0);
    const ready = (await (await fetch(`${w.url}/readyz`)).json()) as {
      load: Record<string, { queued_tokens: number }>;
    };
    expect(ready.load["svc-1.4.0"]?.queued_tokens).toBe(0);
    expect(await (await fetch(`${w.url}/metrics`)).text()).toMatch(
      /svc_engine_requests_total\{outcome="cancelled"\} 1/,
    );
    // The worker answers normally afterwards.
    expect((await w.score(short())).status).toBe(200);
  }, 60_000);
});

describe("evaluation items (priority batch) queue behind live decides (issue 31)", () => {
  it("with every lane busy with batch items, a live short request is answered before the batch items still waiting, with its alone bytes", async () => {
    const alone = await timed(short());
    const batch = (i: number) =>
      JSON.stringify({
        ...JSON.parse(body(`${i}: ${longState.slice(0, 2000)}`, [check("d", "Delivered?")])),
        priority: "batch",
      });
    const done: string[] = [];
    const batches = [1, 2, 3, 4].map((i) =>
      timed(batch(i)).then((r) => {
        done.push(`batch${i}`);
        return r;
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    const live = await timed(short());
    done.push("live");
    const all = await Promise.all(batches);
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(live.status).toBe(200);
    // Two lanes hold at most one batch item each (one sequence per lane stays free): at most two finished first.
    expect(done.indexOf("live")).toBeLessThanOrEqual(2);
    const { request_id: _a, ...liveAnswer } = JSON.parse(live.text);
    const { request_id: _b, ...aloneAnswer } = JSON.parse(alone.text);
    expect(liveAnswer).toEqual(aloneAnswer);
  });
});
