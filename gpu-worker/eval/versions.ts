import { basename, join } from "node:path";
import type { ScoreQuestion } from "../../schema/engine-protocol";
import { findModel, MODELS, type ModelVersion } from "../../schema/models";
import { type Calibration, loadCalibration, type QuestionType } from "../src/calibration";
import { catalogCalibrationPath } from "../src/calibration-pin";
import type { Engine } from "../src/engine";
import { getFraming } from "../src/framings";
import { scorerGroups } from "../src/model-files";
import { openScorer, type ScorerOptions } from "../src/scorer";
import { answerIndex, type EvalItem } from "./dataset/item";
import type { Example } from "./fit";
import { CACHE_DIR, type CacheStats, type CachingScorer, cachingScorer } from "./score-cache";

export type GpuVersion = ModelVersion & { gpu: NonNullable<ModelVersion["gpu"]> };

/** The catalogue's GPU exact version `id` (an alias is refused: results name what was measured). */
export function gpuVersion(id: string): GpuVersion {
  const m = findModel(id);
  if (m?.id !== id || !m.gpu)
    throw new Error(
      `${id} is not a GPU exact version of the catalogue (${MODELS.filter((x) => x.gpu)
        .map((x) => x.id)
        .join(", ")})`,
    );
  return m as GpuVersion;
}

/** The calibration a version serves (`schema/models.ts` → `gpu-worker/calibration/`). */
export const servedCalibration = (v: GpuVersion): Calibration =>
  loadCalibration(catalogCalibrationPath(v.id) as string);

/** The identity map on `framing`: softmax of the raw label scores. */
export const identityCalibration = (framing: string): Calibration => {
  const identity = { temperature: 1, bias: [] };
  return { version: "cal-00000000-0", framing, types: { pick: identity, rate: identity, check: identity } };
};

export interface ScorerSettings {
  threads: number;
  contextSize: number;
  /** `long-context/needle.ts`'s `ROPE_CONFIGS` key; part of the cache folder's name. */
  rope: string;
  ropeScaling?: ScorerOptions["ropeScaling"];
}

/**
 * One caching scorer per weights file the versions asked for evaluate (`model-files.ts`'s rule, so
 * `SVC_MODEL_PATH` points svc-1's file elsewhere); raw scores under `.cache/eval/<file>[+rope]/`.
 */
export class Scorers {
  private readonly byPath = new Map<string, { folder: string; scorer: CachingScorer }>();
  constructor(private readonly settings: ScorerSettings) {}

  of(v: GpuVersion): CachingScorer {
    const g = scorerGroups([v.id])[0] as ReturnType<typeof scorerGroups>[number];
    const s = this.settings;
    const folder = `${basename(g.path, ".gguf")}${s.rope === "none" ? "" : `+rope-${s.rope}`}`;
    let scorer = this.byPath.get(g.path)?.scorer;
    if (!scorer) {
      // Everything the numbers depend on besides the text read: the file, its layout and read rule, RoPE.
      const model = JSON.stringify([
        g.sha256 ?? g.path,
        g.gpu.layout,
        g.gpu.reads ?? null,
        s.ropeScaling ?? null,
      ]);
      const open = () =>
        openScorer({
          modelPath: g.path,
          threads: s.threads,
          sequences: 1,
          contextSize: s.contextSize,
          layout: g.gpu.layout,
          reads: g.gpu.reads,
          ropeScaling: s.ropeScaling,
        });
      scorer = cachingScorer(open, join(CACHE_DIR, folder), model, s.contextSize);
      this.byPath.set(g.path, { folder, scorer });
    }
    return scorer;
  }

  /** What each cache folder saved and cost so far. */
  stats(): [string, CacheStats][] {
    return [...this.byPath.values()].map((x) => [x.folder, x.scorer.stats]);
  }

  async close(): Promise<void> {
    for (const x of this.byPath.values()) await x.scorer.close();
  }
}

/** Items grouped by state, at most 32 to a request (the protocol's limit), so a state is evaluated once. */
function requests(items: EvalItem[]): EvalItem[][] {
  const byState = new Map<string, EvalItem[]>();
  for (const it of items) byState.set(it.state, [...(byState.get(it.state) ?? []), it]);
  return [...byState.values()].flatMap((g) =>
    Array.from({ length: Math.ceil(g.length / 32) }, (_, i) => g.slice(i * 32, i * 32 + 32)),
  );
}

const asked = (group: EvalItem[]): ScoreQuestion[] => group.map((it, k) => ({ ...it.question, id: `q${k}` }));

/**
 * What `engine` answers each item: the calibrated distribution the engine shapes its answer from (phrasings,
 * content-free passes and calibration as the version serves them). Logs progress about once a minute.
 */
export async function answer(
  engine: Engine,
  items: EvalItem[],
  log: (line: string) => void,
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  let last = performance.now();
  for (const group of requests(items)) {
    const { probabilities } = await engine.distributions({
      request_id: group[0]?.id as string,
      model: engine.modelVersion,
      state: group[0]?.state as string,
      questions: asked(group),
    });
    for (const [k, it] of group.entries()) out.set(it.id, probabilities[k] as number[]);
    if (performance.now() - last > 60_000) {
      log(
        `  ${engine.modelVersion} (${engine.calibration.version}): ${out.size} of ${items.length} answered`,
      );
      last = performance.now();
    }
  }
  return out;
}

/** Raw label scores of `items` under `framing` (from the cache, or scored), as fitting examples per type. */
export async function examples(
  scorer: CachingScorer,
  framing: string,
  items: EvalItem[],
): Promise<Record<QuestionType, Example[]>> {
  const out: Record<QuestionType, Example[]> = { pick: [], rate: [], check: [] };
  const f = getFraming(framing);
  for (const group of requests(items)) {
    const raw = await scorer.rawScores(group[0]?.state as string, asked(group), f);
    for (const [k, it] of group.entries())
      out[it.type].push({
        scores: raw.scores[k] as number[],
        tokens: raw.tokensPerOutcome[k] as number[],
        answer: answerIndex(it),
      });
  }
  return out;
}
