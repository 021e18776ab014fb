import type { PromptNode } from "./prompt-tree";

/** A request's question walk split between its own lane and a helper lane. */
export interface HelperShare {
  /** Shared heads every question of the request starts with (the tree's single-node chain): both lanes evaluate them. */
  path: PromptNode[];
  /** Nodes under the path, each lane's share, in tree order. */
  mine: PromptNode[];
  helper: PromptNode[];
  /** Tokens the helper evaluates after the state prefix: the path's and its share's prompt and label tokens. */
  helperTokens: number;
}

/** Tokens a node evaluates at most: its prompt tokens, its descendants', and every label token of its questions. */
function nodeTokens(n: PromptNode, labelTokens: (question: number) => number): number {
  const own = n.tokens.length + (n.question === undefined ? 0 : labelTokens(n.question));
  return n.children.reduce((t, c) => t + nodeTokens(c, labelTokens), own);
}

/**
 * What a wholly idle lane can take off a live request's critical path. Below the heads all the questions share
 * (evaluated by both lanes), about half of the nodes by tokens go to the helper (largest first, each to the
 * lighter side; the request's own lane takes ties), so both lanes finish at about the same time. `undefined`
 * when there is nothing to share (one question) or when the state prefix is longer than `maxPrefix` tokens:
 * the helper evaluates the prefix too, and a long one would hold the other lane about as long as the request,
 * which is what lanes exist to prevent.
 */
export function helperShare(
  tree: PromptNode[],
  prefixTokens: number,
  labelTokens: (question: number) => number,
  maxPrefix: number,
): HelperShare | undefined {
  if (prefixTokens > maxPrefix) return undefined;
  const path: PromptNode[] = [];
  let level = tree;
  while (level.length === 1 && (level[0] as PromptNode).children.length > 0) {
    path.push(level[0] as PromptNode);
    level = (level[0] as PromptNode).children;
  }
  if (level.length < 2) return undefined;
  const cost = level.map((n) => nodeTokens(n, labelTokens));
  const toHelper = new Set<number>();
  let [mine, helper] = [0, 0];
  for (const i of [...level.keys()].sort((a, b) => (cost[b] as number) - (cost[a] as number) || a - b)) {
    if (helper < mine) {
      toHelper.add(i);
      helper += cost[i] as number;
    } else mine += cost[i] as number;
  }
  return {
    path,
    mine: level.filter((_, i) => !toHelper.has(i)),
    helper: level.filter((_, i) => toHelper.has(i)),
    helperTokens: path.reduce((t, n) => t + n.tokens.length, helper),
  };
}
