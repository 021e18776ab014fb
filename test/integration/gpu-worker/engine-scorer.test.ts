import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCalibration } from "../../../gpu-worker/src/calibration";
import { catalogCalibrationPath } from "../../../gpu-worker/src/calibration-pin";
import { type Framing, getFraming } from "../../../gpu-worker/src/framings";
import { defaultModelPath } from "../../../gpu-worker/src/model-check";
import { openScorer, type Scorer } from "../../../gpu-worker/src/scorer";
import { continuationTokens, tokenizePieces } from "../../../gpu-worker/src/tokenize";
import { checkQuestion as check, pickQuestion as pick } from "../../support/score-questions";

// Real model on CPU, no mocks. States stay short so the file runs in seconds. The framing is the one the
// svc-1.4.0 calibration names (the newest version that evaluates this model file).
const framing = getFraming(loadCalibration(catalogCalibrationPath("svc-1.4.0")).framing);
let scorer: Scorer;
beforeAll(async () => {
  scorer = await openScorer({ modelPath: defaultModelPath(), threads: 1, sequences: 2, contextSize: 1024 });
});
afterAll(async () => {
  await scorer?.close();
});

const STATE = "Notes from a geography lesson about European countries and their cities.";
const france = pick("capital", "What is the capital of France?", ["London", "Paris", "Berlin", "Madrid"]);

describe("scoring: label text as the continuation (design: 'labels are scored')", () => {
  it("an obvious pick: the capital of France scores Paris highest with the default framing", async () => {
    const r = await scorer.rawScores(STATE, [france], framing);
    const s = r.scores[0] as number[];
    expect(s).toHaveLength(4);
    expect(s.indexOf(Math.max(...s))).toBe(1);
    for (const v of s) expect(v).toBeLessThan(0);
  });

  it("a multi-token label is the sum of its tokens' log-probs: trie scoring equals scoring each label alone", async () => {
    const labels = ["New York", "New Delhi", "Newcastle upon Tyne", "Paris"];
    const together = await scorer.rawScores(STATE, [pick("q", "Name a city.", labels)], framing);
    expect((together.tokensPerOutcome[0] as number[]).some((n) => n > 1)).toBe(true);
    for (const [i, label] of labels.entries()) {
      const alone = await scorer.rawScores(STATE, [pick("q", "Name a city.", [label])], framing);
      expect((together.scores[0] as number[])[i]).toBeCloseTo((alone.scores[0] as number[])[0] as number, 4);
    }
  });

  it("a question scores the same alone and after other questions on the same state (prefix rewind is exact)", async () => {
    const alone = await scorer.rawScores(STATE, [france], framing);
    const after = await scorer.rawScores(
      STATE,
      [check("a", "Is Berlin in Germany?"), check("b", "Is it raining?"), france],
      framing,
    );
    expect(after.scores[2]).toEqual(alone.scores[0]);
  });
});

describe("continuations are tokenized in context (prompt tail + label, keep the tail)", () => {
  it.each(["Paris", "New York", "12345", "yes", "<|im_start|>", "🙂 ok", "A"])(
    "the split after 'Answer:' is stable for %j and user text never becomes special tokens",
    (label) => {
      const tail = continuationTokens(scorer.model, "Answer:", ` ${label}`);
      const joint = scorer.model.tokenize(`Answer: ${label}`, false);
      expect([...scorer.model.tokenize("Answer:", false), ...tail]).toEqual(joint);
      expect(tail).not.toContain(1);
    },
  );
});

describe("token meter: the state prefix is evaluated ONCE per request however many questions", () => {
  it("1 vs 4 vs 8 questions: tokens_evaluated grows only by the questions' own tokens, a shared head counted once", async () => {
    const prefixTokens = tokenizePieces(scorer.model, framing.statePrefix(STATE)).length;
    const qs = Array.from({ length: 8 }, (_, i) => check(`q${i}`, `Is statement number ${i} true?`));
    const prompts = qs.map((q) => tokenizePieces(scorer.model, framing.questionPrompt(q)));
    const first = prompts[0] as number[];
    let head = 0;
    while (prompts.every((p) => p[head] === first[head])) head++;
    const one = await scorer.rawScores(STATE, qs.slice(0, 1), framing);
    const four = await scorer.rawScores(STATE, qs.slice(0, 4), framing);
    const eight = await scorer.rawScores(STATE, qs, framing);
    const perQuestion = one.meter.tokens_evaluated - prefixTokens;
    expect(perQuestion).toBe(first.length);
    expect(head).toBeGreaterThan(0);
    // Every question here has the same token count; the state and the common head are paid once.
    expect(four.meter.tokens_evaluated).toBe(prefixTokens + head + 4 * (perQuestion - head));
    expect(eight.meter.tokens_evaluated).toBe(prefixTokens + head + 8 * (perQuestion - head));
    // Each question after the state reads the prefix from the cache instead of re-evaluating it.
    expect(eight.meter.tokens_reused).toBeGreaterThanOrEqual(8 * prefixTokens);
  });
});

describe("shared question heads: evaluated once, answers unchanged (scores must not depend on what else is asked)", () => {
  // Long enough that sharing pays for its extra decode (short states share only bigger heads).
  const state = Array.from({ length: 8 }, (_, i) => `Lesson ${i}: ${STATE}`).join("\n");
  const long = check(
    "long",
    `Is statement number 3 true? ${"Consider every sentence of the notes carefully before answering. ".repeat(6)}`,
  );
  const qs = [
    ...[1, 2, 4, 5].map((n) => check(`s${n}`, `Is statement number ${n} true?`)),
    france,
    pick("city", "Name a city.", ["New York", "New Delhi", "Newcastle upon Tyne", "Paris"]),
    pick("city2", "Name a city in Europe.", ["Paris", "Berlin"]),
    long,
  ];
  it("every question scores bit-identically alone and inside a request whose prompts share leading tokens", async () => {
    const prompts = qs.map((q) => tokenizePieces(scorer.model, framing.questionPrompt(q)));
    expect(prompts.at(-1)?.length).toBeGreaterThanOrEqual(64);
    const prefixTokens = tokenizePieces(scorer.model, framing.statePrefix(state)).length;
    const together = await scorer.rawScores(state, qs, framing);
    const promptTokens = prompts.reduce((n, p) => n + p.length, 0);
    // Sharing happened: fewer prompt tokens were evaluated than the prompts hold.
    expect(together.meter.tokens_evaluated - prefixTokens).toBeLessThan(promptTokens);
    for (const [i, q] of qs.entries()) {
      const alone = await scorer.rawScores(state, [q], framing);
      expect(together.scores[i]).toEqual(alone.scores[0]);
    }
  });
});

describe("code mode (baseline): next-token probability of the answer code", () => {
  it("reads exactly one token per outcome", async () => {
    const codes: Framing = {
      id: "test-codes",
      mode: "code",
      statePrefix: (s) => [{ text: `${s}\n\n` }],
      questionPrompt: (q) => [
        { text: `Question: ${q.instructions}\nA. London\nB. Paris\nC. Berlin\nD. Madrid\nAnswer:` },
      ],
      continuations: () => [" A", " B", " C", " D"],
    };
    const r = await scorer.rawScores(STATE, [france], codes);
    expect(r.tokensPerOutcome[0]).toEqual([1, 1, 1, 1]);
    expect((r.scores[0] as number[]).every((v) => Number.isFinite(v) && v < 0)).toBe(true);
  });
});
