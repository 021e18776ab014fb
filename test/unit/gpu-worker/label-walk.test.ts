import type { ControlledEvaluateInputItem, Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { scoreOutcomes, type WalkSequence } from "../../../gpu-worker/src/label-walk";
import { buildTrie, type Trie, type TrieNode } from "../../../gpu-worker/src/trie";

// A fake sequence whose logit for token t depends on every token before it, so a wrong rewind shows up.
const logit = (path: number[], t: number) =>
  Math.sin(path.reduce((h, x) => h * 31 + x, 7) % 1000) * 3 + (t % 5);
function fakeSequence(prefix: number[]) {
  const tokens = [...prefix];
  const decodes: number[] = [];
  const seq: WalkSequence = {
    position: () => tokens.length,
    rewind: (to) => {
      tokens.length = Math.min(tokens.length, to);
      return undefined;
    },
    async run(items: ControlledEvaluateInputItem[]) {
      decodes.push(items.length);
      return items.map((item) => {
        const [token, opts] = Array.isArray(item) ? item : [item, undefined];
        tokens.push(token);
        const filter = (opts?.generateNext?.logits as { filter?: { tokens?: number[] } } | undefined)?.filter;
        if (!filter?.tokens) return undefined;
        return {
          next: {
            logits: new Map(filter.tokens.map((t) => [t as Token, logit(tokens, t)])),
            totalLogitWeight: 1,
          },
        };
      });
    },
  };
  return { seq, decodes, tokens };
}
const dist = (path: number[], children: { token: number }[]) => {
  const max = Math.max(...children.map((c) => logit(path, c.token)));
  return new Map(children.map((c) => [c.token as Token, logit(path, c.token) - max]));
};
/** Reference: log P of each outcome token by token, straight from the fake's definition. */
function expected(prefix: number[], trie: Trie, outcomes: number[][]) {
  return outcomes.map((o) => {
    let node: Trie | TrieNode = trie;
    let lp = 0;
    o.forEach((t, i) => {
      lp += dist([...prefix, ...o.slice(0, i)], node.children).get(t as Token) as number;
      node = node.children.find((c) => c.token === t) as TrieNode;
    });
    return lp;
  });
}

describe("label walk: a multi-token label is the sum of its tokens' log-probs, fewer decodes", () => {
  it.each([
    ["single tokens", [[1], [2], [3]]],
    ["shared first token", [[1, 2], [1, 3], [4]]],
    [
      "a long chain with branches off it",
      [
        [1, 2, 3, 4],
        [1, 2, 5],
        [1, 6, 7],
        [1, 6, 8],
        [9, 10],
      ],
    ],
    [
      "a label that is another's prefix",
      [
        [1, 2],
        [1, 2, 3],
        [1, 2, 4, 5],
      ],
    ],
  ])("%s", async (_name, outcomes) => {
    const prefix = [100, 101, 102];
    const trie = buildTrie(outcomes);
    const run = async (maxChain: number) => {
      const f = fakeSequence(prefix);
      const s = await scoreOutcomes(trie, outcomes.length, dist(prefix, trie.children), f.seq, maxChain);
      return { s, decodes: f.decodes, tokens: f.decodes.reduce((a, b) => a + b, 0) };
    };
    const chained = await run(63);
    const oneByOne = await run(1);
    const want = expected(prefix, trie, outcomes);
    for (const [i, v] of want.entries()) expect(chained.s[i]).toBeCloseTo(v, 12);
    expect(chained.s).toEqual(oneByOne.s);
    // Same tokens evaluated, never more decodes.
    expect(chained.tokens).toBe(oneByOne.tokens);
    expect(chained.decodes.length).toBeLessThanOrEqual(oneByOne.decodes.length);
  });

  it("a 4-token label costs one decode of its 3 inner tokens instead of three", async () => {
    const trie = buildTrie([[1, 2, 3, 4]]);
    const f = fakeSequence([9]);
    await scoreOutcomes(trie, 1, dist([9], trie.children), f.seq, 63);
    expect(f.decodes).toEqual([3]);
  });

  it("chains stop at maxChain tokens per decode (the attention kernel changes at 64 rows)", async () => {
    const long = Array.from({ length: 70 }, (_, i) => i + 1);
    const trie = buildTrie([long]);
    const f = fakeSequence([]);
    await scoreOutcomes(trie, 1, dist([], trie.children), f.seq, 63);
    expect(Math.max(...f.decodes)).toBe(63);
  });
});
