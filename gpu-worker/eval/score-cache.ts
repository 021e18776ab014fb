import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Framing } from "../src/framings";
import type { Scorer } from "../src/scorer";
import type { EvalItem } from "./dataset/item";

/** Raw (uncalibrated) scores of one item under one framing. */
export interface ScoredItem {
  id: string;
  /** Fingerprint of exactly what the model read; a changed framing or item invalidates the cached line. */
  fp: string;
  scores: number[];
  tokens: number[];
}

export const CACHE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", ".cache", "eval");

export function fingerprint(f: Framing, it: EvalItem): string {
  const what = [
    f.id,
    f.mode,
    f.statePrefix(it.state),
    f.questionPrompt(it.question),
    f.continuations(it.question),
  ];
  return createHash("sha256").update(JSON.stringify(what)).digest("hex").slice(0, 16);
}

function readCache(path: string): Map<string, ScoredItem> {
  const m = new Map<string, ScoredItem>();
  if (!existsSync(path)) return m;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as ScoredItem;
      m.set(`${r.id}:${r.fp}`, r);
    } catch {
      // a torn last line from an interrupted run: rescored below
    }
  }
  return m;
}

export interface ScoreStats {
  scored: number;
  cached: number;
  seconds: number;
  tokensEvaluated: number;
}

/**
 * Scores `items` under `framing`, reusing `.cache/eval/<framing>.jsonl`. Items sharing a state go into one
 * request (≤ 32 questions, the protocol's limit), so the state prefix is evaluated once for them.
 */
export async function scoreItems(
  getScorer: (() => Promise<Scorer>) | undefined,
  framing: Framing,
  items: EvalItem[],
  cacheDir = CACHE_DIR,
): Promise<{ results: Map<string, ScoredItem>; stats: ScoreStats }> {
  mkdirSync(cacheDir, { recursive: true });
  const path = join(cacheDir, `${framing.id}.jsonl`);
  const cache = readCache(path);
  const results = new Map<string, ScoredItem>();
  const todo = new Map<string, EvalItem[]>();
  for (const it of items) {
    const fp = fingerprint(framing, it);
    const hit = cache.get(`${it.id}:${fp}`);
    if (hit) results.set(it.id, hit);
    else todo.set(it.state, [...(todo.get(it.state) ?? []), it]);
  }
  const stats: ScoreStats = { scored: 0, cached: results.size, seconds: 0, tokensEvaluated: 0 };
  const t0 = performance.now();
  for (const [state, group] of getScorer ? todo : new Map<string, EvalItem[]>()) {
    for (let i = 0; i < group.length; i += 32) {
      const chunk = group.slice(i, i + 32);
      const raw = await (await (getScorer as () => Promise<Scorer>)()).rawScores(
        state,
        chunk.map((c) => c.question),
        framing,
      );
      stats.tokensEvaluated += raw.meter.tokens_evaluated;
      const lines = chunk.map((it, k) => {
        const r: ScoredItem = {
          id: it.id,
          fp: fingerprint(framing, it),
          scores: raw.scores[k] ?? [],
          tokens: raw.tokensPerOutcome[k] ?? [],
        };
        results.set(it.id, r);
        return JSON.stringify(r);
      });
      appendFileSync(path, `${lines.join("\n")}\n`);
      stats.scored += chunk.length;
    }
  }
  stats.seconds = (performance.now() - t0) / 1000;
  return { results, stats };
}
