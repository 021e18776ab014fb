import { defaultModelPath } from "../src/model-check";
import { openScorer } from "../src/scorer";
import type { EvalItem } from "./dataset/item";
import type { Variant } from "./plan";
import { type ScoredItem, scoreItems } from "./score-cache";

/** Threads for the evaluation run; 2 per the engine notes, EVAL_THREADS=1 on a contended box (docs/quality.md). */
export const EVAL_THREADS = Number(process.env.EVAL_THREADS ?? 2);

/** Scores every variant on its types (cached); returns framing id → item id → raw scores. */
export async function scoreAll(
  items: EvalItem[],
  variants: Variant[],
  log = console.log,
  cachedOnly = false,
): Promise<Map<string, Map<string, ScoredItem>>> {
  const out = new Map<string, Map<string, ScoredItem>>();
  let scorer: Awaited<ReturnType<typeof openScorer>> | undefined;
  try {
    for (const v of variants) {
      const subset = items.filter((it) => v.types.includes(it.type));
      const get = async () => {
        scorer ??= await openScorer({
          modelPath: defaultModelPath(),
          threads: EVAL_THREADS,
          sequences: 1,
          contextSize: 1024,
        });
        return scorer;
      };
      const { results, stats } = await scoreItems(cachedOnly ? undefined : get, v.framing, subset);
      log(
        `${v.framing.id}: ${stats.cached} cached, ${stats.scored} scored in ${stats.seconds.toFixed(1)} s (${stats.tokensEvaluated} tokens evaluated)`,
      );
      out.set(v.framing.id, results);
    }
  } finally {
    await scorer?.close();
  }
  return out;
}
