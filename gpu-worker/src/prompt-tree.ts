/**
 * One step of a request's question walk: evaluate `tokens` on top of where the parent ended, then either
 * read the answer distribution of `question` (the last of `tokens` is its prompt's last token) or descend into
 * `children`, rewinding to the end of `tokens` before each child.
 */
export interface PromptNode {
  tokens: number[];
  question?: number;
  children: PromptNode[];
}

export interface PromptTreeOptions {
  /**
   * Prompts of at least this many tokens are never split (each one is evaluated whole, as before sharing
   * existed). llama.cpp's CPU flash attention switches to a tiled kernel with other rounding at 64 query rows
   * per decode (GGML_FA_TILE_Q); keeping every split piece below it keeps scores bit-identical.
   */
  maxSplitTokens: number;
  /** Share a common head only when it saves at least this many token evaluations (a decode has a fixed cost). */
  minSaved: number;
}

/**
 * Groups question prompts by common leading tokens so the shared head is evaluated once per request (e.g.
 * `Question:` and any wording the questions share). Every question still sees exactly its own prompt on top of
 * the state prefix, at the same positions, so its answer is unchanged; only repeated work goes. Order: first-seen.
 */
export function buildPromptTree(prompts: number[][], opts: PromptTreeOptions): PromptNode[] {
  const leaf = (i: number, depth: number): PromptNode => ({
    tokens: (prompts[i] as number[]).slice(depth),
    question: i,
    children: [],
  });

  const split = (group: number[], depth: number): PromptNode[] => {
    const parts = new Map<string, number[]>();
    for (const i of group) {
      const p = prompts[i] as number[];
      // A prompt with one token left is answered here; it cannot share anything further.
      const key = p.length - depth === 1 ? `solo:${i}` : `t:${p[depth]}`;
      const part = parts.get(key);
      if (part) part.push(i);
      else parts.set(key, [i]);
    }
    return [...parts.values()].flatMap((part) => build(part, depth));
  };

  const build = (group: number[], depth: number): PromptNode[] => {
    const first = prompts[group[0] as number] as number[];
    if (group.length < 2) return [leaf(group[0] as number, depth)];
    const cap = Math.min(...group.map((i) => (prompts[i] as number[]).length - 1)) - depth;
    let lcp = 0;
    while (lcp < cap && group.every((i) => (prompts[i] as number[])[depth + lcp] === first[depth + lcp]))
      lcp++;
    if (lcp === 0) return split(group, depth);
    if ((group.length - 1) * lcp < opts.minSaved) return group.map((i) => leaf(i, depth));
    return [{ tokens: first.slice(depth, depth + lcp), children: split(group, depth + lcp) }];
  };

  const short: number[] = [];
  const whole: PromptNode[] = [];
  prompts.forEach((p, i) => {
    if (p.length < opts.maxSplitTokens) short.push(i);
    else whole.push(leaf(i, 0));
  });
  return [...(short.length ? build(short, 0) : []), ...whole];
}
