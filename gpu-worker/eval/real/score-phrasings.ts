/**
 * Scores items under every phrasing of `gpu-worker/src/phrasings.ts` in one request per item (the state prefix
 * once), and the same questions on the content-free state; cached per (phrasing, item) in
 * `.cache/eval/phrasings.jsonl` so the calibration experiments (`phrasings-report.ts`) never re-run the model.
 *   tsx gpu-worker/eval/real/score-phrasings.ts --sets control:pick/2,computed-train:pick/2,train:pick,heldout:pick,… [--train-every 2]
 * A set is `name[:type][/every]` (every n-th item per type of it); `--phrasings a,b` scores only those.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Framing } from "../../src/framings";
import { defaultModelPath } from "../../src/model-check";
import { multiplex, PHRASINGS, phrased } from "../../src/phrasings";
import { openScorer, type Scorer } from "../../src/scorer";
import type { EvalItem } from "../dataset/item";
import { CACHE_DIR } from "../score-cache";
import {
  CONTENT_FREE_STATE,
  computedTrainSubset,
  controlSubset,
  everyNth,
  loadRealDataset,
} from "./score-real";

export const PHRASING_IDS = Object.keys(PHRASINGS);
const PATH = join(CACHE_DIR, "phrasings.jsonl");
export const RELEVANCE_PATH = join(CACHE_DIR, "relevance.jsonl");

export interface PhrasedScores {
  scores: number[];
  tokens: number[];
  /** log P(question prompt | state prefix) and its token count (`score-relevance.ts` only). */
  lp?: number;
  lpTokens?: number;
}

export const keyOf = (f: Framing, state: string, it: EvalItem) =>
  createHash("sha256")
    .update(JSON.stringify([f.id, state, f.questionPrompt(it.question), f.continuations(it.question)]))
    .digest("hex")
    .slice(0, 20);

/** Cached scores: key(phrasing, state, question) → scores. */
export function readPhrasingCache(path = PATH): Map<string, PhrasedScores> {
  const m = new Map<string, PhrasedScores>();
  if (!existsSync(path)) return m;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as PhrasedScores & { key: string };
      m.set(r.key, { scores: r.scores, tokens: r.tokens, lp: r.lp, lpTokens: r.lpTokens });
    } catch {
      // torn last line of an interrupted run
    }
  }
  return m;
}

/** Scores of `it` in phrasing `id` on its state (`free` false) or on the content-free state. */
export function lookup(
  cache: Map<string, PhrasedScores>,
  id: string,
  it: EvalItem,
  free: boolean,
): PhrasedScores | undefined {
  return cache.get(keyOf(PHRASINGS[id] as Framing, free ? CONTENT_FREE_STATE : it.state, it));
}

/** The item sets the phrasing experiments use. */
export function phrasingSet(spec: string, trainEvery = 2): EvalItem[] {
  const [name, every] = spec.split("/") as [string, string?];
  const [set, type] = name.split(":") as [string, string?];
  const real = loadRealDataset();
  const base =
    set === "control"
      ? controlSubset()
      : set === "computed-train"
        ? computedTrainSubset()
        : set === "train"
          ? everyNth(
              real.filter((i) => i.split === "train"),
              trainEvery,
            )
          : real.filter((i) => i.split === set);
  return everyNth(
    base.filter((i) => i.type !== "rate" && (!type || i.type === type)),
    Number(every ?? 1),
  );
}

async function scoreAll(
  scorer: Scorer,
  items: EvalItem[],
  cache: Map<string, PhrasedScores>,
  ids = PHRASING_IDS,
) {
  const fs = ids.map((id) => PHRASINGS[id] as Framing);
  const mux = multiplex(fs);
  let n = 0;
  const t0 = performance.now();
  for (const free of [false, true])
    for (const it of items) {
      const state = free ? CONTENT_FREE_STATE : it.state;
      const todo = fs.flatMap((f, k) => (cache.has(keyOf(f, state, it)) ? [] : [k]));
      if (!todo.length) continue;
      const raw = await scorer.rawScores(
        state,
        todo.map((k) => phrased(it.question, k)),
        mux,
      );
      const lines = todo.map((k, j) => {
        const key = keyOf(fs[k] as Framing, state, it);
        const r = { scores: raw.scores[j] as number[], tokens: raw.tokensPerOutcome[j] as number[] };
        cache.set(key, r);
        return JSON.stringify({ key, id: it.id, phrasing: fs[k]?.id, free, ...r });
      });
      appendFileSync(PATH, `${lines.join("\n")}\n`);
      if (++n % 50 === 0) console.log(`${n} requests, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (n: string) =>
    process.argv.includes(n) ? process.argv[process.argv.indexOf(n) + 1] : undefined;
  mkdirSync(CACHE_DIR, { recursive: true });
  const cache = readPhrasingCache();
  const scorer = await openScorer({
    modelPath: defaultModelPath(),
    threads: Number(process.env.EVAL_THREADS ?? 1),
    sequences: 1,
    contextSize: 1024,
  });
  try {
    for (const set of (arg("--sets") ?? "control").split(",")) {
      const items = phrasingSet(set, Number(arg("--train-every") ?? 2));
      const t0 = performance.now();
      await scoreAll(scorer, items, cache, arg("--phrasings")?.split(",") ?? PHRASING_IDS);
      console.log(`${set}: ${items.length} items, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  } finally {
    await scorer.close();
  }
}
