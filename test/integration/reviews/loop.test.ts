// The review loop (issue 51), end to end on the REAL model (svc-1.4.0, the small SmolLM2 file): 200 decides on a
// question with a review rule (below a confidence) → the queue holds exactly the decides that matched → a script
// labels them through the API → the loop makes an evaluation and, once it is done, a calibration → confirmed, it
// answers later decides on that question (`"calibration": "calib_…"`).
import { describe, expect, it } from "vitest";
import { apiCall, credit, decide, seed, useRealModelEdge } from "../../support/money-harness";

const MODEL = "svc-1.4.0";
const QUESTION = { type: "check", instructions: "Does the customer ask for a refund?" } as const;
// svc-1.4.0 is unsure of every one of these (confidence 0 to 0.018, median 0.004, in a run at 0.8 that kept all
// 200): this keeps about half, so the queue's "exactly those" is a real selection.
const BELOW = 0.005;

// Short messages (quick on the CPU model) whose right answer is known: half ask for money back, half do not.
const ASKS = [
  "I want a refund for order {n}.",
  "Please give me my money back for order {n}.",
  "Order {n} was broken, refund me.",
  "Can I get a refund on order {n}?",
  "Return order {n} and refund my card.",
];
const OTHERS = [
  "Where is order {n}?",
  "Order {n} arrived, thank you.",
  "Can I change the address of order {n}?",
  "Is order {n} in stock again?",
  "Love the shoes from order {n}!",
];
const MESSAGES = Array.from({ length: 200 }, (_, i) => {
  const yes = i % 2 === 0;
  const template = (yes ? ASKS : OTHERS)[Math.floor(i / 2) % 5]!;
  return { state: template.replace("{n}", String(1000 + i)), yes };
});
const HELD = ["I need a refund for order 77.", "Order 78 arrived on time."];

const world = useRealModelEdge(MODEL);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("issue 51: review → labels → evaluation → calibration, on the real model", () => {
  it("200 decides with a below_confidence rule: the queue holds exactly those that matched; labelled through the API, the loop makes an evaluation and a calibration; later decides carry it", async () => {
    const t0 = Date.now();
    const account = await seed({ keys: [{ mode: "live" }] });
    const key = account.keys[0]!.secret;
    const api = (method: string, path: string, body?: unknown) =>
      apiCall(world.edge.url, method, path, key, body);
    await credit(world.edge.url, account.accountId, 100_000_000);

    const made = await api("POST", "/v1/review-rules", {
      question: QUESTION,
      model: MODEL,
      when: { below_confidence: BELOW, sample_rate: 0 },
    });
    expect(made.status, made.text).toBe(201);
    const rule = made.json.id as string;

    // Four at a time (the GPU worker queues them), as a client's traffic comes; every answer's confidence noted.
    const matched = new Map<string, boolean>();
    const confidences: number[] = [];
    const queued = [...MESSAGES];
    const worker = async () => {
      for (let m = queued.shift(); m; m = queued.shift()) {
        const r = await decide(world.edge.url, key, {
          model: MODEL,
          state: m.state,
          questions: { refund: QUESTION },
        });
        expect(r.status, r.text).toBe(200);
        const answer = (r.json.answers as Record<string, { confidence: number }>).refund!;
        confidences.push(answer.confidence);
        if (answer.confidence < BELOW) matched.set(r.json.id as string, m.yes);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const decided = Date.now();

    // The capture writes after each response: wait until the counts stop moving, then compare.
    let queue: Array<{ id: string; request_id: string; answer: { confidence: number } }> = [];
    for (let last = -1; ; await sleep(300)) {
      queue = [];
      for (let after: string | null = null; ; ) {
        const page = await api(
          "GET",
          `/v1/reviews?rule=${rule}&limit=100${after ? `&starting_after=${after}` : ""}`,
        );
        queue.push(...page.json.data);
        if (!page.json.has_more) break;
        after = page.json.data.at(-1).id;
      }
      if (queue.length === last) break;
      last = queue.length;
    }
    const missing = [...matched.keys()].filter((id) => !queue.some((r) => r.request_id === id));
    console.log(
      `${MODEL}: ${matched.size} of 200 decides below ${BELOW}, ${queue.length} kept, decides took ${((decided - t0) / 1000).toFixed(1)} s; confidence min ${Math.min(...confidences)}, median ${[...confidences].sort((a, b) => a - b)[100]}, max ${Math.max(...confidences)}; not kept: ${missing.join(", ")}`,
    );
    expect(matched.size).toBeGreaterThan(0);
    expect(matched.size).toBeLessThan(200);
    expect(new Set(queue.map((r) => r.request_id))).toEqual(new Set(matched.keys()));
    expect(queue.every((r) => r.answer.confidence < BELOW)).toBe(true);

    // The script labels every kept item with the right answer.
    for (const r of queue) {
      const labelled = await api("POST", `/v1/reviews/${r.id}/label`, { label: matched.get(r.request_id) });
      expect(labelled.status, labelled.text).toBe(200);
    }
    const yes = [...matched.values()].filter(Boolean).length;
    console.log(
      `${MODEL}: ${matched.size} of 200 decides below confidence ${BELOW} kept (${yes} yes, ${matched.size - yes} no), decides took ${((decided - t0) / 1000).toFixed(1)} s`,
    );

    const evaluation = await api("POST", `/v1/review-rules/${rule}/evaluations`);
    expect(evaluation.status, evaluation.text).toBe(201);
    expect(evaluation.json).toMatchObject({
      object: "evaluation",
      model: MODEL,
      progress: { total: matched.size },
    });

    let loop: { status?: string; calibration?: string; evaluation?: string } = {};
    for (const end = Date.now() + 300_000; Date.now() < end; await sleep(1_000)) {
      loop = (await api("GET", `/v1/review-rules/${rule}`)).json.loop;
      if (loop.status !== "evaluating" && loop.status !== "fitting") break;
    }
    expect(loop, JSON.stringify(loop)).toMatchObject({ status: "fitted", evaluation: evaluation.json.id });
    const calibration = (await api("GET", `/v1/calibrations/${loop.calibration}`)).json;
    expect(calibration).toMatchObject({ active: false, evaluation: evaluation.json.id, model: MODEL });
    console.log(
      `loop: evaluation ${evaluation.json.id} done, calibration ${calibration.method} held-out NLL ${calibration.metrics.before.nll} → ${calibration.metrics.after.nll}`,
    );

    // Not applied until the user confirms; then later decides on that question carry it.
    const before = await decide(world.edge.url, key, {
      model: MODEL,
      state: HELD[0],
      questions: { refund: QUESTION },
    });
    expect((before.json.answers as Record<string, object>).refund).not.toHaveProperty("calibration");
    const applied = await api("POST", `/v1/calibrations/${calibration.id}/activate`);
    expect(applied.status, applied.text).toBe(200);
    await sleep(1_100); // the key cache's second: other isolates see the new generation
    for (const state of HELD) {
      const later = await decide(world.edge.url, key, {
        model: MODEL,
        state,
        questions: { refund: QUESTION },
      });
      expect((later.json.answers as Record<string, { calibration?: string }>).refund!.calibration).toBe(
        calibration.id,
      );
    }
    console.log(`review loop end to end: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }, 900_000);
});
