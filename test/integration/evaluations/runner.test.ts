// Evaluations run in the background on the real local stack (Postgres through the Neon bridge, Redis through
// the Upstash bridge, the Worker in workerd with its Durable Objects) against a GPU stand-in: every item is
// counted exactly once across a GPU outage and an edge restart, usage equals the items' tokens, and the
// metrics equal a recomputation from the stored answers; an exhausted daily test quota pauses the run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineAnswer } from "../../../schema/engine-protocol";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { evaluationMetrics } from "../../../workers/evaluations/metrics";
import { EvaluationQuota } from "../../../workers/stores/evaluation-quota";
import { redisAccess } from "../../../workers/stores/redis";
import { apiCall, type StandInGpu, seed, startEdge, startStandInGpu } from "../../support/money-harness";
import { stack, withStackDb } from "../../support/stack-db";

let gpu: StandInGpu;
let edge: EdgeWorker;
beforeAll(async () => {
  gpu = await startStandInGpu("slow");
  edge = await startEdge({ gpuUrls: [gpu.url] });
}, 120_000);
afterAll(async () => {
  await edge?.stop();
  await gpu?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function items(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    state: { ticket: `Order ${i}: the parcel ${i % 3 === 0 ? "arrived broken" : "is fine"}.` },
    questions: {
      broken: { type: "check", instructions: "Is the parcel broken?" },
      mood: { type: "pick", instructions: "Mood?", options: { calm: null, angry: null, "10": null } },
    },
    expected: { broken: i % 3 === 0, mood: i % 2 === 0 ? "calm" : "angry" },
  }));
}

const api = (method: string, path: string, secret: string, body?: unknown) =>
  apiCall(edge.url, method, path, secret, body);

async function until(
  secret: string,
  id: string,
  ok: (e: Record<string, any>) => boolean,
  ms = 90_000,
): Promise<Record<string, any>> {
  const end = Date.now() + ms;
  for (;;) {
    const { json } = await api("GET", `/v1/evaluations/${id}`, secret);
    if (ok(json) || Date.now() > end) return json;
    await sleep(300);
  }
}

describe("the background runner", () => {
  it("counts every item once across a GPU outage and an edge restart; usage = items' tokens; metrics recompute", async () => {
    const account = await seed({ keys: [{ mode: "test" }] });
    const secret = account.keys[0]!.secret;
    const created = await api("POST", "/v1/evaluations", secret, { name: "reliability", items: items(40) });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const id = created.json.id as string;

    // Some items in, the GPU dies for a while (calls fail: the run waits and keeps its place) …
    await until(secret, id, (e) => e.progress.done >= 6, 30_000);
    gpu.setMode("kill");
    await sleep(3_000);
    const during = (await api("GET", `/v1/evaluations/${id}`, secret)).json;
    expect(during.status).toBe("running");
    // … and the edge restarts (its Durable Objects' in-memory state and alarms gone) while it is down.
    await edge.stop();
    gpu.setMode("slow");
    edge = await startEdge({ gpuUrls: [gpu.url] });

    const done = await until(secret, id, (e) => e.status === "done");
    expect(done).toMatchObject({ status: "done", progress: { done: 40, total: 40 } });
    expect(done.finished).toEqual(expect.any(Number));

    const listed = await api("GET", `/v1/evaluations/${id}/items?limit=1000`, secret);
    const data = listed.json.data as Array<Record<string, any>>;
    expect(data).toHaveLength(40);
    const attempts = data.map((i) => i.decision.id as string);
    expect(new Set(attempts).size).toBe(40);
    const tokens = data.reduce((s, i) => s + (i.decision.usage.input_tokens as number), 0);
    expect(done.usage.input_tokens).toBe(tokens);
    for (const i of data)
      expect(i.decision).toMatchObject({
        object: "decision",
        served_by: "gpu",
        usage: { tier: "test", charge_micro_cents: 0 },
      });

    // Usage: exactly one test usage event per item, under the creating key, summing to the items' tokens.
    const usage = await withStackDb(async (q) => {
      const { rows } = await q(
        `SELECT count(*)::int AS n, coalesce(sum(input_tokens), 0)::int AS t, array_agg(request_id) AS ids
           FROM usage_events WHERE key_id = $1 AND mode = 'test'`,
        [account.keys[0]!.id],
      );
      return rows[0] as { n: number; t: number; ids: string[] };
    });
    expect(usage.n).toBe(40);
    expect(usage.t).toBe(tokens);
    expect(new Set(usage.ids)).toEqual(new Set(attempts));

    // Metrics equal a recomputation from the stored answers.
    const recomputed = evaluationMetrics(
      data.map((i) => ({
        expected: i.expected,
        answers: Object.entries(i.decision.answers as Record<string, any>).map(([qid, a]) => ({
          id: qid,
          answer: (a.type === "pick"
            ? { ...a, probabilities: Object.entries(a.probabilities) }
            : a) as EngineAnswer,
        })),
      })),
    );
    // Equal, key order too (questions in first-seen order, each metric object in its field order).
    expect(JSON.stringify(done.metrics)).toBe(JSON.stringify(recomputed));
    expect(Object.keys(done.metrics)).toEqual(["broken", "mood"]);
    expect(done.metrics.broken.n).toBe(40);
    expect(done.metrics.mood.thresholds).toHaveLength(3);
  }, 240_000);

  it("pauses when the daily test quota runs out, says when it resumes; one evaluation runs at a time", async () => {
    const account = await seed({ keys: [{ mode: "test" }] });
    const secret = account.keys[0]!.secret;
    // Spend the account's day but a few tokens (the same counter test keys and the playground take from).
    const quota = new EvaluationQuota(redisAccess(stack()), 250_000);
    expect(await quota.take(account.accountId, 250_000 - 30)).not.toBeNull();
    const a = (await api("POST", "/v1/evaluations", secret, { name: "a", items: items(3) })).json;
    const b = (await api("POST", "/v1/evaluations", secret, { name: "b", items: items(1) })).json;
    const paused = await until(secret, a.id, (e) => e.status === "paused", 30_000);
    expect(paused.status).toBe("paused");
    const midnight = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400;
    expect(paused.resumes_at).toBe(midnight);
    expect((await api("GET", `/v1/evaluations/${b.id}`, secret)).json.status).toBe("queued");
    // A decide with a test key is refused by the same quota.
    const res = await fetch(`${edge.url}/v1/decide`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        state: "x".repeat(200),
        questions: { q: { type: "check", instructions: "ok?" } },
      }),
    });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("test_daily_quota");
    // Cancelling the paused run lets the queued one start (it pauses too: same quota).
    expect((await api("POST", `/v1/evaluations/${a.id}/cancel`, secret)).json.status).toBe("cancelled");
    const next = await until(secret, b.id, (e) => e.status === "paused", 30_000);
    expect(next.status).toBe("paused");
  }, 120_000);
});
