/** A node of the continuation trie: one token on the path from the answer prefix. */
export interface TrieNode {
  token: number;
  children: TrieNode[];
  /** Indexes of the outcomes whose token sequence ends at this node. */
  ends: number[];
}

/** The trie root stands for the answer prefix itself; outcomes with no tokens end there. */
export interface Trie {
  children: TrieNode[];
  ends: number[];
}

/** Builds a trie of the outcomes' token sequences; children keep first-seen order so evaluation is reproducible. */
export function buildTrie(sequences: number[][]): Trie {
  const root: Trie = { children: [], ends: [] };
  sequences.forEach((tokens, outcome) => {
    let node: Trie | TrieNode = root;
    for (const token of tokens) {
      let child: TrieNode | undefined = node.children.find((c) => c.token === token);
      if (!child) {
        child = { token, children: [], ends: [] };
        node.children.push(child);
      }
      node = child;
    }
    node.ends.push(outcome);
  });
  return root;
}

/** Number of next-token distributions the trie needs: the root plus every node with children. */
export function distributionsNeeded(trie: Trie): number {
  const walk = (n: Trie | TrieNode): number =>
    (n.children.length ? 1 : 0) + n.children.reduce((s, c) => s + walk(c), 0);
  return walk(trie);
}
