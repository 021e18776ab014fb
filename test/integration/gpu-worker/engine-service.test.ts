import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVED_BY_DEFAULT } from "../../../gpu-worker/src/config";
import {
  type RunningWorker,
  runWorkerExpectingExit,
  startWorker,
} from "../../../gpu-worker/src/spawn-worker";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { ScoreResponse } from "../../../schema/engine-protocol";
import { CPU_CLASS } from "../../../schema/models";
import { signRequest } from "../../../schema/signing";
// @ts-expect-error: plain ESM script without types
import { PINNED_CPU_VARIANT, runnableVariants } from "../../../scripts/ggml-cpu-pin.mjs";
import { checkQuestion as check } from "../../support/score-questions";

// The real worker process (gpu-worker/src/main.ts) on the real model, reached over HTTP.
const SECRET = "test-secret-engine-service";
let w: RunningWorker;
beforeAll(async () => {
  w = await startWorker({
    GPU_SIGNING_SECRET: SECRET,
    SVC_THREADS: "1",
    SVC_SEQUENCES: "3",
    SVC_QUEUE_MAX: "16",
    SVC_CONTEXT_SIZE: "1024",
  });
});
afterAll(async () => {
  await w?.stop();
});

// Each call gets its own request_id: identical bodies signed in the same second are (rightly) replays.
let seq = 0;
const body = (state: string, questions: ScoreQuestion[], model = "svc-1.0.0") =>
  JSON.stringify({ request_id: `r${++seq}`, model, state, questions });
const good = () => body("The sky is blue today.", [check("q", "Is the sky blue?")]);

async function post(b: string, headers: Record<string, string>) {
  return fetch(`${w.url}/v1/score`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: b,
  });
}

describe("health and metrics", () => {
  it("GET /livez and GET /readyz answer 200 once the model is loaded and warmed", async () => {
    expect((await fetch(`${w.url}/livez`)).status).toBe(200);
    expect((await fetch(`${w.url}/readyz`)).status).toBe(200);
  });

  it("GET /readyz advertises what the pool routes by: the exact versions served × the numerics class, which every answer reports too", async () => {
    const ready = (await (await fetch(`${w.url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready).toEqual({
      ready: true,
      numerics_class: expect.any(String),
      models: SERVED_BY_DEFAULT,
      load: expect.any(Object),
    });
    // Per version: measured speed (tokens evaluated per second of decode time; the warm-up measured it) and
    // queued work in tokens, over the worker's lanes (issue 30).
    for (const v of SERVED_BY_DEFAULT)
      expect((ready.load as Record<string, unknown>)[v]).toEqual({
        tokens_per_second: expect.any(Number),
        queued_tokens: 0,
        wait_tokens: 0,
        lanes: 2,
      });
    expect(ready.numerics_class).toMatch(/^cpu-[a-z0-9._]+-t1-nlc\d+\.\d+\.\d+$/);
    if (runnableVariants().includes(PINNED_CPU_VARIANT)) expect(ready.numerics_class).toBe(CPU_CLASS);
    const answer = (await (await w.score(good())).json()) as Record<string, unknown>;
    expect(answer.numerics_class).toBe(ready.numerics_class);
  });

  it("a replay placed on another numerics class is refused with 404 model_not_served, never computed", async () => {
    const placed = JSON.stringify({ ...JSON.parse(good()), numerics_class: "cuda-other-nlc0.0.0" });
    const res = await w.score(placed);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "model_not_served" });
  });
});

describe("signed calls: the worker rejects unsigned or stale calls", () => {
  it.each([
    ["unsigned", async () => ({})],
    [
      "bad signature",
      async (b: string) =>
        signRequest("wrong-secret", { method: "POST", origin: w.url, path: "/v1/score", body: b }),
    ],
    [
      "stale (61 s old)",
      async (b: string) =>
        signRequest(
          SECRET,
          { method: "POST", origin: w.url, path: "/v1/score", body: b },
          Math.floor(Date.now() / 1000) - 61,
        ),
    ],
    [
      "signed over another body",
      async (b: string) =>
        signRequest(SECRET, { method: "POST", origin: w.url, path: "/v1/score", body: `${b} ` }),
    ],
  ] as [string, (b: string) => Promise<Record<string, string>>][])(
    "%s → 401 unauthorized",
    async (_name, headers) => {
      const b = good();
      const res = await post(b, await headers(b));
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: "unauthorized" });
    },
  );

  it("good signature → 200; the same signature replayed → 401", async () => {
    const b = good();
    const headers = await signRequest(SECRET, { method: "POST", origin: w.url, path: "/v1/score", body: b });
    const first = await post(b, headers);
    expect(first.status).toBe(200);
    const parsed = ScoreResponse.parse(await first.json());
    expect(parsed.model).toBe("svc-1.0.0");
    expect(parsed.calibration).toMatch(/^cal-\d{8}-\d+$/);
    const replay = await post(b, headers);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: "unauthorized", message: "signature replayed" });
  });
});

describe("bad requests get a clear 4xx EngineError and the worker stays up", () => {
  it.each([
    ["malformed JSON", "{not json", 400, "bad_request"],
    ["not a ScoreRequest", JSON.stringify({ model: "svc-1.0.0" }), 400, "bad_request"],
    [
      "33 questions",
      body(
        "s",
        Array.from({ length: 33 }, (_, i) => check(`q${i}`, "ok?")),
      ),
      400,
      "bad_request",
    ],
    ["unknown version", body("s", [check("q", "ok?")], "svc-9.9.9"), 404, "model_not_served"],
    [
      "more tokens than a sequence holds",
      body("word ".repeat(3000), [check("q", "ok?")]),
      413,
      "too_many_tokens",
    ],
    ["body over 1 MiB", body("x".repeat(1_100_000), [check("q", "ok?")]), 413, "bad_request"],
  ])("%s → %i %s", async (_name, b, status, code) => {
    const res = await w.score(b);
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ error: code });
    expect((await w.score(good())).status).toBe(200);
  });
});

describe("limits: 32 questions and a 255-option pick in one request", () => {
  it("answers all 32 questions in order, with exact probabilities for 255 options", async () => {
    const options = Array.from({ length: 255 }, (_, i) => ({ label: `item ${i}`, description: null }));
    const questions: ScoreQuestion[] = [
      { id: "big", type: "pick", instructions: "Which item is it?", criteria: [], options },
      {
        id: "rate",
        type: "rate",
        instructions: "How warm is it?",
        criteria: [],
        levels: ["cold", "mild", "hot"],
      },
      ...Array.from({ length: 30 }, (_, i) => check(`c${i}`, `Is fact ${i} true?`)),
    ];
    const res = await w.score(body("It is a mild day. The item is item 7.", questions));
    expect(res.status).toBe(200);
    const out = ScoreResponse.parse(await res.json());
    expect(out.answers.map((a) => a.id)).toEqual(questions.map((q) => q.id));
    const big = out.answers[0]?.answer;
    if (big?.type !== "pick") throw new Error("expected a pick answer");
    expect(big.probabilities).toHaveLength(255);
    expect(Math.round(big.probabilities.reduce((s, [, p]) => s + p * 10_000, 0))).toBe(10_000);
    const rate = out.answers[1]?.answer;
    if (rate?.type !== "rate") throw new Error("expected a rate answer");
    expect(rate.rating).toBeGreaterThanOrEqual(0);
    expect(rate.rating).toBeLessThanOrEqual(2);
  });

  it("GET /metrics reports requests by outcome, tokens, latency and queue depth (Prometheus text)", async () => {
    const text = await (await fetch(`${w.url}/metrics`)).text();
    // Labelled by exact version and numerics class too (issue 43); other labels may follow `outcome`.
    expect(text).toMatch(/svc_engine_requests_total\{outcome="ok"[^}]*\} \d+/);
    expect(text).toMatch(/svc_engine_requests_total\{outcome="unauthorized"[^}]*\} \d+/);
    expect(text).toMatch(/svc_engine_tokens_evaluated_total [1-9]\d*/);
    expect(text).toMatch(/svc_engine_tokens_reused_total [1-9]\d*/);
    expect(text).toMatch(/svc_engine_prefix_tokens_kept_total \d+/);
    expect(text).toMatch(/svc_engine_request_duration_seconds_count [1-9]\d*/);
    expect(text).toMatch(/svc_engine_queue_depth 0/);
  });
});

describe("determinism: the same request on the same version gives byte-identical answers", () => {
  it("alone (5×) and amid 8 concurrent other requests (3 rounds)", async () => {
    const target = () =>
      body("Order 1182: two lamps, one returned, refund pending.", [
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
        check("c", "Was something returned?"),
      ]);
    const alone: string[] = [];
    for (let i = 0; i < 5; i++) alone.push(await (await w.score(target())).text());
    expect(new Set(alone).size).toBe(1);
    for (let round = 0; round < 3; round++) {
      const others = Array.from({ length: 8 }, (_, i) =>
        w.score(
          body(`Noise ${round}-${i}: ${"lorem ipsum ".repeat(5 + i * 3)}`, [
            check("x", `Is ${i} even?`),
            check("y", "Ok?"),
          ]),
        ),
      );
      const [mine, ...rest] = await Promise.all([w.score(target()), ...others]);
      for (const r of rest) expect(r.status).toBe(200);
      expect(await mine?.text()).toBe(alone[0]);
    }
  });

  it("across a worker restart: a new process of the same class computes the same bytes", async () => {
    const target = body("Order 1182: two lamps, one returned, refund pending.", [
      check("c", "Was something returned?"),
    ]);
    const before = await (await w.score(target)).text();
    // Only the version asked (issue 54): the bytes of one weights file do not depend on the others loaded.
    const again = await startWorker({
      GPU_SIGNING_SECRET: SECRET,
      SVC_THREADS: "1",
      SVC_CONTEXT_SIZE: "1024",
      SVC_MODEL_VERSION: "svc-1.0.0",
    });
    try {
      const retarget = JSON.stringify({ ...JSON.parse(target), request_id: `r${++seq}` });
      expect(await (await again.score(retarget)).text()).toBe(before);
    } finally {
      await again.stop();
    }
  });
});

describe("stopping (a deploy's SIGTERM)", () => {
  it("a call in flight when SIGTERM arrives is answered 200; new calls get 503 overloaded, /readyz 503; then the worker exits 0", async () => {
    const leaving = await startWorker({
      GPU_SIGNING_SECRET: SECRET,
      SVC_THREADS: "1",
      SVC_CONTEXT_SIZE: "1024",
      SVC_MODEL_VERSION: "svc-1.0.0",
    });
    const exited = new Promise<number | null>((r) => leaving.child.once("exit", (code) => r(code)));
    try {
      const long = body(`Ticket: ${"the parcel came late and the box was open, ".repeat(40)}`, [
        check("a", "Is the customer angry?"),
        check("b", "Was the box open?"),
        check("c", "Does the customer want a refund?"),
      ]);
      const inFlight = leaving.score(long);
      await waitForInFlight(leaving.url);
      leaving.child.kill("SIGTERM");
      await expect.poll(async () => (await fetch(`${leaving.url}/readyz`)).status).toBe(503);
      const refused = await leaving.score(good());
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: "overloaded" });
      const answered = await inFlight;
      expect(answered.status).toBe(200);
      expect(ScoreResponse.safeParse(await answered.json()).success).toBe(true);
      expect(await exited).toBe(0);
    } finally {
      await leaving.stop();
    }
  });
});

async function waitForInFlight(url: string): Promise<void> {
  await expect
    .poll(async () => /svc_engine_in_flight [1-9]/.test(await (await fetch(`${url}/metrics`)).text()), {
      timeout: 10_000,
      interval: 5,
    })
    .toBe(true);
}

describe("overload and refusal to start", () => {
  it("a full queue answers 503 overloaded; the worker then answers normally", async () => {
    const small = await startWorker({
      GPU_SIGNING_SECRET: SECRET,
      SVC_THREADS: "1",
      SVC_SEQUENCES: "1",
      SVC_QUEUE_MAX: "1",
      SVC_CONTEXT_SIZE: "1024",
      SVC_MODEL_VERSION: "svc-1.0.0",
    });
    try {
      const b = (i: number) =>
        body(`Burst ${i}: ${"a long enough state to keep the sequence busy ".repeat(12)}`, [
          check("q", "Busy?"),
          check("r", "Still?"),
        ]);
      const res = await Promise.all(Array.from({ length: 8 }, (_, i) => small.score(b(i))));
      const statuses = res.map((r) => r.status);
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
      const rejected = res.find((r) => r.status === 503);
      expect(await rejected?.json()).toMatchObject({ error: "overloaded" });
      expect((await small.score(b(99))).status).toBe(200);
    } finally {
      await small.stop();
    }
  });

  it.each([
    ["a missing model file", { SVC_MODEL_PATH: "/nonexistent/model.gguf" }, /not found.*npm run model:pull/],
    ["a wrong sha256", { SVC_MODEL_SHA256: "0".repeat(64) }, /sha256 .* expected 0{64}.*npm run model:pull/],
    ["no signing secret", { GPU_SIGNING_SECRET: "" }, /GPU_SIGNING_SECRET/],
  ])("refuses to start with %s and names the fix", async (_n, env, message) => {
    const { code, out } = await runWorkerExpectingExit({ GPU_SIGNING_SECRET: SECRET, ...env });
    expect(code).toBe(1);
    expect(out).toMatch(message);
  });
});
