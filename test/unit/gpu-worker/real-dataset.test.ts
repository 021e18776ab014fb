import { describe, expect, it } from "vitest";
import { answerIndex, type EvalItem } from "../../../gpu-worker/eval/dataset/item";
import { splitOf } from "../../../gpu-worker/eval/real/build-real";
import { sentimentClass } from "../../../gpu-worker/eval/real/read-vader";
import { loadSet } from "../../../gpu-worker/eval/sets";
import { ScoreQuestion } from "../../../schema/engine-protocol";

const items = loadSet("real");
const familyOf = (it: EvalItem) => it.source.split(":")[0] as string;

describe("real-text labelled set (gpu-worker/eval/data-real)", () => {
  it("has at least 2,000 items over pick, rate and check, each a valid ScoreQuestion with an answer in range", () => {
    expect(items.length).toBeGreaterThanOrEqual(2000);
    for (const t of ["pick", "rate", "check"])
      expect(items.filter((i) => i.type === t).length).toBeGreaterThan(400);
    for (const it of items) {
      expect(ScoreQuestion.safeParse(it.question).success).toBe(true);
      const k =
        it.question.type === "pick"
          ? it.question.options.length
          : it.question.type === "rate"
            ? it.question.levels.length
            : 2;
      expect(answerIndex(it)).toBeGreaterThanOrEqual(0);
      expect(answerIndex(it)).toBeLessThan(k);
    }
  });

  it("ids are unique and every item keeps the readings it was kept on", () => {
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    for (const it of items) expect(it.labels?.length).toBeGreaterThanOrEqual(1);
  });

  it("sentiment items: two independent rater groups, both in the item's class (disagreements were dropped)", () => {
    const levels = ["negative", "neutral", "positive"];
    const rated = items.filter((i) => familyOf(i) === "sentiment-rate");
    expect(rated.length).toBeGreaterThan(500);
    for (const it of rated) {
      const [a, b] = (it.labels ?? []).map((l) => Number(l.split(":")[1]));
      expect(sentimentClass(a as number)).toBe(levels[it.answer as number]);
      expect(sentimentClass(b as number)).toBe(levels[it.answer as number]);
    }
  });

  it("rate families beyond sentiment: a CWE entry's likelihood of exploit, an interview question's level", () => {
    for (const [family, prefix, levels] of [
      ["exploit-rate", "likelihood:", ["Low", "Medium", "High"]],
      ["difficulty-rate", "level:", ["basic", "intermediate", "advanced"]],
    ] as const) {
      const rated = items.filter((i) => familyOf(i) === family);
      expect(rated.length).toBeGreaterThan(150);
      for (const it of rated) {
        const label = it.labels?.find((l) => l.startsWith(prefix))?.slice(prefix.length);
        expect(label).toBe(levels[it.answer as number]);
      }
      for (const level of levels.keys())
        expect(rated.filter((i) => i.answer === level).length).toBeGreaterThanOrEqual(30);
    }
  });

  it("no source text is on both sides of the split; both sides hold every family", () => {
    const sides = new Map<string, Set<string>>();
    for (const it of items) sides.set(it.state, (sides.get(it.state) ?? new Set()).add(it.split));
    expect([...sides.values()].filter((s) => s.size > 1)).toEqual([]);
    for (const fam of new Set(items.map(familyOf)))
      for (const split of ["train", "heldout"])
        expect(items.some((i) => familyOf(i) === fam && i.split === split)).toBe(true);
  });

  it("the split is a stable hash of the source key (about half each way)", () => {
    expect(splitOf("vader/tweets/1")).toBe(splitOf("vader/tweets/1"));
    const keys = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    const train = keys.filter((k) => splitOf(k) === "train").length;
    expect(train).toBeGreaterThan(430);
    expect(train).toBeLessThan(570);
  });

  it("states run from one line to ~300 tokens, and JSON states are asked through substituted {{path}} values", () => {
    const lengths = items.map((i) => i.state.length);
    expect(Math.min(...lengths)).toBeLessThan(40);
    expect(Math.max(...lengths)).toBeGreaterThan(900);
    const json = items.filter((i) => familyOf(i) === "spam-json-check");
    expect(json.length).toBeGreaterThan(50);
    for (const it of json) {
      expect(it.state.startsWith("channel: email\nsubject: ")).toBe(true);
      expect(it.question.instructions).not.toContain("{{");
    }
  });
});
