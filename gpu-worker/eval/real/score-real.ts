/**
 * Scores the real-text set (gpu-worker/eval/data-real) under framing variants, each item also on the
 * content-free state (for contextual calibration); cached in .cache/eval like `npm run eval`.
 *   tsx gpu-worker/eval/real/score-real.ts --framings a,b:check [--set screen|train|heldout|all|control|computed-train] [--every N]
 * `control` is every CONTROL_STRIDE-th held-out item of the computed set (`computed-train`: of its train split); `screen` (default) is every SCREEN_STRIDE-th TRAIN item per type; `--every N` keeps every N-th item per type
 * of the set; `id:type` limits a framing to one question type.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getFraming } from "../../src/framings";
import { defaultModelPath } from "../../src/model-check";
import { openScorer, type Scorer } from "../../src/scorer";
import type { EvalItem } from "../dataset/item";
import { loadDataset } from "../load";
import { CACHE_DIR, type ScoredItem, scoreItems } from "../score-cache";
import { REAL_DATA_DIR } from "./build-real";

/** The state the content-free scores are read on (the engine's `content_free` calibration uses the same). */
export const CONTENT_FREE_STATE = "N/A";
/** Framings are screened on every SCREEN_STRIDE-th train item of each type. */
export const SCREEN_STRIDE = 6;

/** Scores of another model file (`SVC_MODEL_PATH`) go under `.cache/eval/<EVAL_MODEL_TAG>/`, never mixed with svc-1's. */
export const modelCacheDir = () =>
  process.env.EVAL_MODEL_TAG ? join(CACHE_DIR, process.env.EVAL_MODEL_TAG) : CACHE_DIR;

export const loadRealDataset = () => loadDataset(REAL_DATA_DIR);
export const contentFree = (it: EvalItem): EvalItem => ({ ...it, state: CONTENT_FREE_STATE });

/** Every `n`-th item of each type, in file order. */
export function everyNth(items: EvalItem[], n: number): EvalItem[] {
  const seen = new Map<string, number>();
  return items.filter((it) => {
    const k = seen.get(it.type) ?? 0;
    seen.set(it.type, k + 1);
    return k % n === 0;
  });
}

/** Every CONTROL_STRIDE-th held-out item per type of the computed set: the control where the model knows nothing. */
export const CONTROL_STRIDE = 10;
export const controlSubset = () =>
  everyNth(
    loadDataset().filter((i) => i.split === "heldout"),
    CONTROL_STRIDE,
  );

/** Every CONTROL_STRIDE-th TRAIN item per type of the computed set: fitted on together with the real train split. */
export const computedTrainSubset = () =>
  everyNth(
    loadDataset().filter((i) => i.split === "train"),
    CONTROL_STRIDE,
  );

/** The screening subset: every SCREEN_STRIDE-th train item per type, in file order. */
export const screenSubset = (items: EvalItem[]) =>
  everyNth(
    items.filter((i) => i.split === "train"),
    SCREEN_STRIDE,
  );

export interface RealScores {
  state: Map<string, ScoredItem>;
  free: Map<string, ScoredItem>;
}

/** Raw scores of `items` under framing `id` on their states and on the content-free state (cached). */
export async function scoreReal(
  id: string,
  items: EvalItem[],
  getScorer: (() => Promise<Scorer>) | undefined,
  log = console.log,
): Promise<RealScores> {
  const f = getFraming(id);
  const dir = modelCacheDir();
  const a = await scoreItems(getScorer, f, items, dir);
  const b = await scoreItems(getScorer, f, items.map(contentFree), dir);
  log(
    `${id}: ${a.stats.scored} scored (${a.stats.seconds.toFixed(0)} s), ${a.stats.cached} cached; content-free ${b.stats.scored} scored`,
  );
  return { state: a.results, free: b.results };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (n: string) =>
    process.argv.includes(n) ? process.argv[process.argv.indexOf(n) + 1] : undefined;
  const all = loadRealDataset();
  const set = arg("--set") ?? "screen";
  const base =
    set === "control"
      ? controlSubset()
      : set === "computed-train"
        ? computedTrainSubset()
        : set === "screen"
          ? screenSubset(all)
          : all.filter((i) => set === "all" || i.split === set);
  const items = everyNth(base, Number(arg("--every") ?? 1));
  if (process.env.SVC_MODEL_PATH && !process.env.EVAL_MODEL_TAG)
    throw new Error(
      "SVC_MODEL_PATH needs EVAL_MODEL_TAG (the cache keys framings and items, not model files)",
    );
  let scorer: Scorer | undefined;
  const get = async () => {
    scorer ??= await openScorer({
      modelPath: process.env.SVC_MODEL_PATH || defaultModelPath(),
      threads: Number(process.env.EVAL_THREADS ?? 1),
      sequences: 1,
      contextSize: 1024,
    });
    return scorer;
  };
  try {
    for (const spec of (arg("--framings") ?? "").split(",").filter(Boolean)) {
      const [id, type] = spec.split(":") as [string, string?];
      await scoreReal(
        id,
        items.filter((i) => !type || i.type === type),
        get,
      );
    }
  } finally {
    await (scorer as Scorer | undefined)?.close();
  }
}
