import type { ControlledEvaluateInputItem, Token } from "node-llama-cpp";
import type { Trie, TrieNode } from "./trie";

/** Log-probabilities of the tokens a filtered logit read returned. */
export type NextDist = Map<Token, number>;

type EvalOutput = { next: { logits?: Map<Token, number>; totalLogitWeight?: number } } | undefined;

/** An item that evaluates `token` and reads the logits of `children`' tokens (plus the top one) after it. */
export function nextItem(token: Token, children: TrieNode[]): ControlledEvaluateInputItem {
  return [
    token,
    {
      generateNext: {
        logits: { filter: { tokens: children.map((c) => c.token as Token), includeTop: 1 } },
        totalLogitWeight: true,
      },
    },
  ];
}

/** Log-probabilities of the requested tokens from a filtered logit read: l − l_max − ln Σ exp(l − l_max). */
export function logProbs(out: EvalOutput): NextDist {
  const logits = out?.next.logits;
  const total = out?.next.totalLogitWeight;
  if (!logits || total === undefined) throw new Error("engine: missing logits in evaluation output");
  let max = Number.NEGATIVE_INFINITY;
  for (const v of logits.values()) if (v > max) max = v;
  const lnTotal = Math.log(total);
  const res: NextDist = new Map();
  for (const [t, v] of logits) res.set(t, v - max - lnTotal);
  return res;
}

/** The sequence a walk runs on: evaluate on top of it, where it ends, cut it back. */
export interface WalkSequence {
  run(items: ControlledEvaluateInputItem[]): Promise<EvalOutput[]>;
  position(): number;
  rewind(to: number): Promise<void> | undefined;
}

/**
 * Scores every outcome of `trie` (sum of its tokens' log-probs) given the distribution `rootDist` read right
 * after the answer prefix, where `seq` ends. A label of several tokens needs a read after each token but its
 * last. Instead of one 1-token decode per trie node, a chain of nodes (a node, its first child with children,
 * …) is evaluated in one decode with a read at every token; off-chain branches rewind and do the same. Every
 * token is still evaluated once on top of exactly its own path. `maxChain` keeps decodes under the row count
 * where the attention kernel changes (see prompt-tree), so the numbers equal the one-token-per-decode walk.
 */
export async function scoreOutcomes(
  trie: Trie,
  outcomes: number,
  rootDist: NextDist,
  seq: WalkSequence,
  maxChain: number,
): Promise<number[]> {
  const s = new Array<number>(outcomes).fill(0);
  const lpOf = (dist: NextDist, n: TrieNode) => dist.get(n.token as Token) ?? Number.NEGATIVE_INFINITY;
  // `node` is evaluated (the sequence ends right after it); `skip` is a child the caller's chain already covers.
  const expand = async (node: Trie | TrieNode, dist: NextDist, acc: number, skip?: TrieNode) => {
    const at = seq.position();
    for (const child of node.children) {
      if (child === skip) continue;
      const lp = acc + lpOf(dist, child);
      for (const o of child.ends) s[o] = lp;
      if (!child.children.length) continue;
      const chain: TrieNode[] = [child];
      for (let n = child.children.find((c) => c.children.length); n && chain.length < maxChain; ) {
        chain.push(n);
        n = n.children.find((c) => c.children.length);
      }
      await seq.rewind(at);
      const out = await seq.run(chain.map((n) => nextItem(n.token as Token, n.children)));
      const dists = out.map(logProbs);
      const lps = [lp];
      for (let j = 1; j < chain.length; j++) {
        lps[j] = (lps[j - 1] as number) + lpOf(dists[j - 1] as NextDist, chain[j] as TrieNode);
        for (const o of (chain[j] as TrieNode).ends) s[o] = lps[j] as number;
      }
      // Deepest first, so each rewind only cuts tokens that are no longer needed.
      for (let j = chain.length - 1; j >= 0; j--) {
        await seq.rewind(at + j + 1);
        await expand(chain[j] as TrieNode, dists[j] as NextDist, lps[j] as number, chain[j + 1]);
      }
    }
  };
  await expand(trie, rootDist, 0);
  return s;
}
