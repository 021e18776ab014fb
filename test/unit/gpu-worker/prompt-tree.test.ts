import { describe, expect, it } from "vitest";
import { buildPromptTree, type PromptNode } from "../../../gpu-worker/src/prompt-tree";

const opts = { maxSplitTokens: 64, minSaved: 2 };
/** Every root-to-question path, concatenated: must reproduce each prompt exactly. */
function paths(nodes: PromptNode[], above: number[] = [], out = new Map<number, number[]>()) {
  for (const n of nodes) {
    const here = [...above, ...n.tokens];
    if (n.question !== undefined) out.set(n.question, here);
    else paths(n.children, here, out);
  }
  return out;
}
const evaluated = (nodes: PromptNode[]): number =>
  nodes.reduce((s, n) => s + n.tokens.length + evaluated(n.children), 0);

describe("prompt tree: each question still sees exactly its own prompt", () => {
  it.each([
    [
      "no sharing",
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      6,
    ],
    [
      "common head",
      [
        [9, 9, 1],
        [9, 9, 2],
        [9, 9, 3],
      ],
      5,
    ],
    [
      "nested heads",
      [
        [7, 1, 1, 5],
        [7, 1, 1, 6],
        [7, 2, 8],
        [7, 2, 9],
      ],
      9,
    ],
    [
      "a prompt that is another's head",
      [
        [4, 5],
        [4, 5, 6],
        [4, 5, 7],
      ],
      6,
    ],
    [
      "identical prompts",
      [
        [1, 2, 3],
        [1, 2, 3],
      ],
      4,
    ],
    ["one-token prompts", [[1], [1], [2]], 3],
    [
      "a saving below minSaved is not worth a decode",
      [
        [1, 2],
        [1, 3],
      ],
      4,
    ],
  ])("%s", (_name, prompts, cost) => {
    const tree = buildPromptTree(prompts, opts);
    const got = paths(tree);
    expect(got.size).toBe(prompts.length);
    for (const [i, p] of prompts.entries()) expect(got.get(i)).toEqual(p);
    expect(evaluated(tree)).toBe(cost);
  });

  it("prompts of maxSplitTokens or more tokens are evaluated whole (the kernel changes at 64 query rows)", () => {
    const long = Array.from({ length: 64 }, (_, i) => i);
    const tree = buildPromptTree([long, [0, 1, 2, 3]], opts);
    expect(tree).toContainEqual({ tokens: long, question: 0, children: [] });
    expect(paths(tree).get(1)).toEqual([0, 1, 2, 3]);
  });

  it("every evaluated piece is shorter than maxSplitTokens when the prompts are", () => {
    const prompts = [Array(63).fill(5), [...Array(62).fill(5), 6]];
    const walk = (ns: PromptNode[]): number[] => ns.flatMap((n) => [n.tokens.length, ...walk(n.children)]);
    expect(Math.max(...walk(buildPromptTree(prompts, opts)))).toBeLessThan(64);
  });
});
