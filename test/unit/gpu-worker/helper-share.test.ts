import { describe, expect, it } from "vitest";
import { helperShare } from "../../../gpu-worker/src/helper-share";
import type { PromptNode } from "../../../gpu-worker/src/prompt-tree";

const leaf = (question: number, tokens: number): PromptNode => ({
  tokens: Array.from({ length: tokens }, (_, i) => i),
  question,
  children: [],
});
const head = (tokens: number, children: PromptNode[]): PromptNode => ({
  tokens: Array.from({ length: tokens }, (_, i) => i),
  children,
});
const labels = (n: number) => () => n;

describe("helperShare: what an idle lane takes off a request's critical path", () => {
  it("the README's two questions: the larger stays, the other goes to the helper", () => {
    const tree = [leaf(0, 57), leaf(1, 20)];
    const s = helperShare(tree, 38, labels(1), 512);
    expect(s?.mine.map((n) => n.question)).toEqual([0]);
    expect(s?.helper.map((n) => n.question)).toEqual([1]);
    expect(s?.path).toEqual([]);
    expect(s?.helperTokens).toBe(21);
  });

  it("balances by tokens, largest first, keeping tree order on each side", () => {
    const tree = [leaf(0, 10), leaf(1, 40), leaf(2, 30), leaf(3, 20)];
    const s = helperShare(tree, 10, labels(0), 512);
    // 40 → mine, 30 → helper, 20 → helper (30 < 40), 10 → mine (50 ≥ 40): 50 tokens each.
    expect(s?.mine.map((n) => n.question)).toEqual([0, 1]);
    expect(s?.helper.map((n) => n.question)).toEqual([2, 3]);
    expect(s?.helperTokens).toBe(50);
  });

  it("below heads all questions share: both lanes evaluate the heads, the questions under them are split", () => {
    const tree = [head(3, [head(2, [leaf(0, 8), leaf(1, 8), leaf(2, 8)])])];
    const s = helperShare(tree, 20, labels(1), 512);
    expect(s?.path.map((n) => n.tokens.length)).toEqual([3, 2]);
    expect(s?.mine.length).toBe(2);
    expect(s?.helper.length).toBe(1);
    expect(s?.helperTokens).toBe(3 + 2 + 9);
  });

  it("nothing to share with one question, or with a state prefix longer than one chunk", () => {
    expect(helperShare([leaf(0, 30)], 10, labels(1), 512)).toBeUndefined();
    expect(helperShare([head(3, [leaf(0, 8)])], 10, labels(1), 512)).toBeUndefined();
    expect(helperShare([leaf(0, 30), leaf(1, 30)], 513, labels(1), 512)).toBeUndefined();
  });
});
