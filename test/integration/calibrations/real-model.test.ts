// Calibrated on your labels (issue 44), end to end on the REAL model: an evaluation of labelled items on
// svc-1.4.0 (the small CPU model, quick here) → a calibration → decides on that version carry it and their
// held-out answers are better calibrated; a replay after delete is byte-identical; another version, an edited
// question and another account answer exactly as before.
import { describe, expect, it } from "vitest";
import { apiCall, credit, decide, seed, useRealModelEdge } from "../../support/money-harness";

const MODEL = "svc-1.4.0";
const QUESTION = { type: "check", instructions: "Does the customer say the parcel arrived broken?" } as const;

// The small model's two versions only: loads in seconds where every version takes minutes on a busy box.
const world = useRealModelEdge(`${MODEL},svc-1.3.0`);

const WHAT = [
  "a blender",
  "two books",
  "a lamp",
  "a phone case",
  "garden chairs",
  "a kettle",
  "shoes",
  "a rug",
];
/** Item i: broken (expected yes) one time in three, else fine; states differ in what was ordered. */
const ticket = (i: number) =>
  `Order ${1000 + i}: ${WHAT[i % WHAT.length]}. ${i % 3 === 0 ? "The box was crushed and it arrived broken." : "Everything arrived and works well, thanks."}`;
const item = (i: number) => ({
  state: ticket(i),
  questions: { broken: QUESTION },
  expected: { broken: i % 3 === 0 },
});

const api = (method: string, path: string, secret: string, body?: unknown) =>
  apiCall(world.edge.url, method, path, secret, body);

type Answered = { status: number; text: string; headers: Headers; json: { answers: Record<string, any> } };
const answered = (r: { status: number; text: string; headers: Headers; json: unknown }) => r as Answered;

/** Mean NLL and top-label ECE-15 of P(yes) answers against the labels. */
function quality(pYes: number[], yes: boolean[]) {
  let nll = 0;
  const bins = Array.from({ length: 15 }, () => ({ n: 0, p: 0, ok: 0 }));
  pYes.forEach((p, i) => {
    const q = Math.min(1 - 1e-4, Math.max(1e-4, yes[i] ? p : 1 - p));
    nll -= Math.log(q);
    const top = Math.max(p, 1 - p);
    const b = bins[Math.min(14, Math.floor(top * 15))]!;
    b.n++;
    b.p += top;
    b.ok += p >= 0.5 === yes[i] ? 1 : 0;
  });
  const ece = bins.reduce(
    (s, b) => s + (b.n ? (b.n / pYes.length) * Math.abs(b.ok / b.n - b.p / b.n) : 0),
    0,
  );
  return { nll: nll / pYes.length, ece };
}

describe("calibrated on your labels, on the real model", () => {
  it("evaluation → calibration → decides carry it, held-out NLL and ECE drop; replay after delete byte-identical; others unchanged", async () => {
    const mine = await seed({ keys: [{ mode: "test" }, { mode: "live" }] });
    const other = await seed({ keys: [{ mode: "live" }] });
    const [test, live] = mine.keys.map((k) => k.secret) as [string, string];
    const otherLive = other.keys[0]!.secret;
    await credit(world.edge.url, mine.accountId, 100_000_000);
    await credit(world.edge.url, other.accountId, 100_000_000);

    const train = Array.from({ length: 90 }, (_, i) => item(i));
    const created = await api("POST", "/v1/evaluations", test, {
      name: "broken parcels",
      model: MODEL,
      items: train,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as string;
    for (const end = Date.now() + 600_000; Date.now() < end; ) {
      const e = await api("GET", `/v1/evaluations/${id}`, test);
      if (e.json.status === "done") break;
      expect(["queued", "running"]).toContain(e.json.status);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const made = await api("POST", "/v1/calibrations", live, { evaluation: id, question: "broken" });
    expect(made.status, made.text).toBe(201);
    const calibration = made.json as { id: string; n: number; metrics: { before: any; after: any } };
    expect(calibration.n).toBe(90);
    expect(calibration.metrics.after.nll).toBeLessThan(calibration.metrics.before.nll);

    // 30 held-out items (not in the evaluation), asked as decides by this account and by another one.
    const held = Array.from({ length: 30 }, (_, k) => 200 + k);
    const ask = async (secret: string, i: number, question: object = QUESTION, model = MODEL) =>
      answered(
        await decide(world.edge.url, secret, { model, state: ticket(i), questions: { broken: question } }),
      );
    const calibrated: number[] = [];
    const plain: number[] = [];
    for (const i of held) {
      const a = await ask(live, i);
      expect(a.status, a.text).toBe(200);
      expect(a.json.answers.broken.calibration).toBe(calibration.id);
      calibrated.push(a.json.answers.broken.probability);
      const b = await ask(otherLive, i);
      expect(b.json.answers.broken).not.toHaveProperty("calibration");
      plain.push(b.json.answers.broken.probability);
    }
    const labels = held.map((i) => i % 3 === 0);
    const before = quality(plain, labels);
    const after = quality(calibrated, labels);
    console.log(
      `held-out (30 decides, ${MODEL}): NLL ${before.nll.toFixed(3)} → ${after.nll.toFixed(3)}, ECE-15 ${before.ece.toFixed(3)} → ${after.ece.toFixed(3)}`,
    );
    expect(after.nll).toBeLessThan(before.nll);
    expect(after.ece).toBeLessThan(before.ece);

    // An edited question and another exact version: exactly what an uncalibrated account gets.
    const edited = { ...QUESTION, instructions: `${QUESTION.instructions} Answer yes or no.` };
    expect((await ask(live, 300, edited)).json.answers).toEqual(
      (await ask(otherLive, 300, edited)).json.answers,
    );
    const v13 = await ask(live, 301, QUESTION, "svc-1.3.0");
    expect(v13.json.answers).toEqual((await ask(otherLive, 301, QUESTION, "svc-1.3.0")).json.answers);

    // A replay after the calibration was deleted: recomputed on the original version with the same map.
    const body = { model: MODEL, state: ticket(302), questions: { broken: QUESTION } };
    const original = answered(
      await decide(world.edge.url, live, body, { "idempotency-key": "calibrated-replay" }),
    );
    expect(original.json.answers.broken.calibration).toBe(calibration.id);
    expect((await api("DELETE", `/v1/calibrations/${calibration.id}`, live)).json.active).toBe(false);
    await new Promise((r) => setTimeout(r, 1_100)); // the key cache (≤ 1 s) carries the account's generation
    expect(answered(await decide(world.edge.url, live, body)).json.answers.broken).not.toHaveProperty(
      "calibration",
    );
    const replay = await decide(world.edge.url, live, body, { "idempotency-key": "calibrated-replay" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(original.text);
  }, 900_000);
});
