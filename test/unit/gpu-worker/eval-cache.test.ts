import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cachingScorer, scoreKey } from "../../../gpu-worker/eval/score-cache";
import { everyNth, shard } from "../../../gpu-worker/eval/sets";
import { getFraming } from "../../../gpu-worker/src/framings";
import type { Scorer } from "../../../gpu-worker/src/scorer";
import { checkQuestion as check } from "../../support/score-questions";
import { scorerStandIn } from "../../support/scorer-stand-in";

const dir = mkdtempSync(join(tmpdir(), "svc-eval-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const framing = getFraming("plain-mix-2");
const A = check("a", "Is it spam?");
const B = check("b", "Is it about money?");

/** A stand-in model: scores are [−len(instructions), −∞]; records the questions of every request. */
const stub = (calls: string[][]): Scorer =>
  scorerStandIn((_state, qs) => {
    calls.push(qs.map((q) => q.instructions));
    return {
      scores: qs.map((q) => [-q.instructions.length, Number.NEGATIVE_INFINITY]),
      tokensPerOutcome: qs.map(() => [1, 1]),
      meter: { tokens_evaluated: 3, tokens_reused: 0 },
    };
  });

describe("the eval's score cache", () => {
  it("sends only the questions it lacks, in one request; a re-run reads everything (−∞ too) without the model", async () => {
    const calls: string[][] = [];
    const first = cachingScorer(async () => stub(calls), dir, "m1", 1024);
    await first.rawScores("S", [A], framing);
    const both = await first.rawScores("S", [B, A], framing);
    expect(calls).toEqual([["Is it spam?"], ["Is it about money?"]]);
    expect(both.scores).toEqual([
      [-18, Number.NEGATIVE_INFINITY],
      [-11, Number.NEGATIVE_INFINITY],
    ]);
    expect(first.stats).toMatchObject({ scored: 2, cached: 1 });
    const again = cachingScorer(async () => Promise.reject(new Error("opened the model")), dir, "m1", 1024);
    expect((await again.rawScores("S", [A, B], framing)).scores).toEqual([both.scores[1], both.scores[0]]);
    expect(again.stats).toMatchObject({ scored: 0, cached: 2 });
  });

  it("keys by what the model reads and by the model, not by the question's id; a torn line is scored again", async () => {
    expect(scoreKey("m1", framing, "S", A)).toBe(scoreKey("m1", framing, "S", { ...A, id: "other" }));
    expect(scoreKey("m1", framing, "S", A)).not.toBe(scoreKey("m2", framing, "S", A));
    expect(scoreKey("m1", framing, "S", A)).not.toBe(scoreKey("m1", framing, "T", A));
    expect(scoreKey("m1", framing, "S", A)).not.toBe(scoreKey("m1", getFraming("chatml-qa"), "S", A));
    const path = join(dir, "scores.jsonl");
    writeFileSync(path, `${readFileSync(path, "utf8")}{"key":"torn`);
    const calls: string[][] = [];
    const s = cachingScorer(async () => stub(calls), dir, "m1", 1024);
    await s.rawScores("S", [A, check("c", "Is it new?")], framing);
    expect(calls).toEqual([["Is it new?"]]);
    const reread = cachingScorer(async () => Promise.reject(new Error("opened the model")), dir, "m1", 1024);
    await reread.rawScores("S", [A, B, check("c", "Is it new?")], framing);
    expect(reread.stats).toMatchObject({ scored: 0, cached: 3 });
  });
});

describe("every N-th item per type", () => {
  it("keeps the 1st, (N+1)th, … item of each type in file order", () => {
    const items = ["pick", "check", "pick", "check", "pick"].map((type, i) => ({ id: String(i), type }));
    expect(everyNth(items as never, 2).map((i) => i.id)).toEqual(["0", "1", "4"]);
  });
});

describe("part k of n", () => {
  it("splits by state in file order, a state's questions in one part, every item in exactly one part", () => {
    const items = ["A", "B", "A", "C", "D", "B"].map((state, i) => ({ id: String(i), state }));
    const parts = [0, 1].map((k) => shard(items as never, k, 2).map((i) => i.id));
    expect(parts).toEqual([
      ["0", "2", "3"],
      ["1", "4", "5"],
    ]);
  });
});
