// Learn from your labels (issue 49), end to end on the REAL model: labelled mail that svc-1.4.0 answers weakly
// (held-out AUC 0.78 on these mails, cross-validated 0.83; a map cannot raise an AUC) → an evaluation → a
// calibration that reads the state (`method: "state_words"`) → held-out decides carry it and beat the version's
// own answers on AUC and NLL; a replay after delete is byte-identical; an edited question is untouched. The mail
// is the repo's spam-check family (SpamAssassin), the shortest 60 train and 30 held-out items.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { auc } from "../../../schema/metrics";
import { apiCall, credit, decide, seed, useRealModelEdge } from "../../support/money-harness";

const MODEL = "svc-1.4.0";
const QUESTION = { type: "check", instructions: "Is this message unsolicited bulk mail or a scam?" } as const;

interface Mail {
  id: string;
  split: "train" | "heldout";
  state: string;
  answer: boolean;
}
const mails = readFileSync(new URL("../../../gpu-worker/eval/data-real/check.jsonl", import.meta.url), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Mail)
  .filter((m) => m.id.startsWith("spam-check-"));
/** The `n` shortest mails of a split (quick on the CPU model), in the file's order. */
function shortest(split: Mail["split"], n: number): Mail[] {
  const of = mails.filter((m) => m.split === split);
  const cut = [...of].sort((a, b) => a.state.length - b.state.length)[n - 1]!.state.length;
  return of.filter((m) => m.state.length <= cut).slice(0, n);
}
// 60: a check's calibration needs 30 labels of each answer (these 60 have them).
const TRAIN = shortest("train", 60);
const HELD = shortest("heldout", 30);

const world = useRealModelEdge(MODEL);

/** A decide's answers as this test reads them. */
type Answers = { answers: Record<string, { probability: number; calibration?: string }> };
const answersOf = (r: { json: unknown }) => (r.json as Answers).answers;

const api = (method: string, path: string, secret: string, body?: unknown) =>
  apiCall(world.edge.url, method, path, secret, body);

/** Mean NLL and AUC (ties count half) of P(yes) answers against the labels. */
function quality(pYes: number[], yes: boolean[]) {
  let nll = 0;
  pYes.forEach((p, i) => {
    nll -= Math.log(Math.min(1 - 1e-4, Math.max(1e-4, yes[i] ? p : 1 - p)));
  });
  return { nll: nll / pYes.length, auc: auc(pYes, yes) };
}

describe("learn from your labels, on the real model", () => {
  it("labelled mail the version answers weakly → evaluation → method state_words; held-out decides carry it with better AUC and NLL; replay after delete byte-identical; an edited question untouched", async () => {
    const mine = await seed({ keys: [{ mode: "test" }, { mode: "live" }] });
    const other = await seed({ keys: [{ mode: "live" }] });
    const [test, live] = mine.keys.map((k) => k.secret) as [string, string];
    const otherLive = other.keys[0]!.secret;
    await credit(world.edge.url, mine.accountId, 100_000_000);
    await credit(world.edge.url, other.accountId, 100_000_000);

    const created = await api("POST", "/v1/evaluations", test, {
      name: "spam",
      model: MODEL,
      items: TRAIN.map((m) => ({
        state: m.state,
        questions: { spam: QUESTION },
        expected: { spam: m.answer },
      })),
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as string;
    for (const end = Date.now() + 600_000; Date.now() < end; ) {
      const e = await api("GET", `/v1/evaluations/${id}`, test);
      if (e.json.status === "done") break;
      expect(["queued", "running"]).toContain(e.json.status);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const made = await api("POST", "/v1/calibrations", live, { evaluation: id, question: "spam" });
    expect(made.status, made.text).toBe(201);
    const calibration = made.json as Record<string, any>;
    expect(calibration.n).toBe(60);
    expect(calibration.method).toBe("state_words");
    expect(calibration.features).not.toBeNull();
    const methods = (
      calibration.metrics.methods as Array<{ method: string; metrics: { nll: number; auc: number } }>
    ).map((m) => ({ method: m.method, ...m.metrics }));
    expect(methods.map((m) => m.method)).toContain("state_words");
    const words = methods.find((m) => m.method === "state_words")!;
    for (const m of methods) expect(words.nll).toBeLessThanOrEqual(m.nll);
    console.log(
      `fit (60 labels, ${MODEL}, 5-fold): ${methods.map((m) => `${m.method} NLL ${m.nll} AUC ${m.auc}`).join("; ")}; version NLL ${calibration.metrics.before.nll} AUC ${calibration.metrics.before.auc}`,
    );

    // 30 held-out mails (not in the evaluation), asked by this account and by one without a calibration.
    const ask = async (secret: string, state: string, question: object = QUESTION) =>
      (await decide(world.edge.url, secret, {
        model: MODEL,
        state,
        questions: { spam: question },
      })) as unknown as {
        status: number;
        text: string;
        json: { answers: Record<string, { probability: number; calibration?: string }> };
      };
    const calibrated: number[] = [];
    const plain: number[] = [];
    for (const m of HELD) {
      const a = await ask(live, m.state);
      expect(a.status, a.text).toBe(200);
      expect(a.json.answers.spam?.calibration).toBe(calibration.id);
      calibrated.push(a.json.answers.spam!.probability);
      const b = await ask(otherLive, m.state);
      expect(b.json.answers.spam).not.toHaveProperty("calibration");
      plain.push(b.json.answers.spam!.probability);
    }
    const labels = HELD.map((m) => m.answer);
    const before = quality(plain, labels);
    const after = quality(calibrated, labels);
    console.log(
      `held-out (30 decides, ${MODEL}): AUC ${before.auc.toFixed(3)} → ${after.auc.toFixed(3)}, NLL ${before.nll.toFixed(3)} → ${after.nll.toFixed(3)}`,
    );
    expect(after.auc).toBeGreaterThan(before.auc);
    expect(after.nll).toBeLessThan(before.nll);

    // An edited question (instructions changed): exactly what an account without a calibration gets.
    const edited = { ...QUESTION, instructions: `${QUESTION.instructions} Answer yes or no.` };
    const mail = HELD[0]!.state;
    const mineEdited = await ask(live, mail, edited);
    expect(mineEdited.json.answers.spam).not.toHaveProperty("calibration");
    expect(mineEdited.json.answers).toEqual((await ask(otherLive, mail, edited)).json.answers);

    // A replay after the calibration was deleted: the same bytes, the words model applied again.
    const body = { model: MODEL, state: HELD[1]!.state, questions: { spam: QUESTION } };
    const original = await decide(world.edge.url, live, body, { "idempotency-key": "state-words-replay" });
    expect(answersOf(original).spam?.calibration).toBe(calibration.id);
    expect((await api("DELETE", `/v1/calibrations/${calibration.id}`, live)).json.active).toBe(false);
    await new Promise((r) => setTimeout(r, 1_100)); // the key cache (≤ 1 s) carries the account's generation
    expect(answersOf(await decide(world.edge.url, live, body)).spam).not.toHaveProperty("calibration");
    const replay = await decide(world.edge.url, live, body, { "idempotency-key": "state-words-replay" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(original.text);
  }, 900_000);
});
