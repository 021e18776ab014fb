/**
 * Scores check items in phrasing `ph-qa` with the question prompt's own log-probability read too (the relevance
 * feature: log P(question | state) − log P(question | content-free state)), on the state and on the content-free
 * state, with the engine's scorer (`prepare`'s `relevance`); cached in `.cache/eval/relevance.jsonl`.
 *   tsx gpu-worker/eval/real/score-relevance.ts --sets train:check,computed-train:check,heldout:check,control:check
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Framing } from "../../src/framings";
import { defaultModelPath } from "../../src/model-check";
import { PHRASINGS } from "../../src/phrasings";
import { openScorer } from "../../src/scorer";
import { CACHE_DIR } from "../score-cache";
import { keyOf, phrasingSet, RELEVANCE_PATH, readPhrasingCache } from "./score-phrasings";
import { CONTENT_FREE_STATE } from "./score-real";

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (n: string) =>
    process.argv.includes(n) ? process.argv[process.argv.indexOf(n) + 1] : undefined;
  mkdirSync(CACHE_DIR, { recursive: true });
  const cache = readPhrasingCache(RELEVANCE_PATH);
  const f = PHRASINGS["ph-qa"] as Framing;
  const scorer = await openScorer({
    modelPath: defaultModelPath(),
    threads: Number(process.env.EVAL_THREADS ?? 1),
    sequences: 1,
    contextSize: 1024,
  });
  try {
    for (const set of (arg("--sets") ?? "train:check").split(",")) {
      const items = phrasingSet(set, 1);
      const t0 = performance.now();
      let n = 0;
      for (const free of [true, false])
        for (const it of items) {
          const state = free ? CONTENT_FREE_STATE : it.state;
          const key = keyOf(f, state, it);
          if (cache.has(key)) continue;
          const raw = await scorer.score(scorer.prepare(state, [it.question], f, [true]));
          const r = {
            scores: raw.scores[0] as number[],
            tokens: raw.tokensPerOutcome[0] as number[],
            lp: raw.promptLogProbs?.[0]?.lp as number,
            lpTokens: raw.promptLogProbs?.[0]?.tokens as number,
          };
          cache.set(key, r);
          appendFileSync(RELEVANCE_PATH, `${JSON.stringify({ key, id: it.id, free, ...r })}\n`);
          if (++n % 100 === 0)
            console.log(`${set}: ${n} requests, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
        }
      console.log(`${set}: ${items.length} items, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  } finally {
    await scorer.close();
  }
}
