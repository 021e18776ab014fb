import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScoreQuestion } from "../../schema/engine-protocol";
import type { Framing } from "../src/framings";
import type { NumericsClass } from "../src/numerics";
import type { PreparedRequest, RawScores, Scorer } from "../src/scorer";

export const CACHE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", ".cache", "eval");

/** One question's raw scores, as the scorer gave them. */
interface Cached {
  scores: number[];
  tokens: number[];
}

/** What the cache saved and cost so far. */
export interface CacheStats {
  /** Questions scored by the model. */
  scored: number;
  /** Questions read from the cache. */
  cached: number;
  /** Seconds spent in the model. */
  seconds: number;
  tokensEvaluated: number;
}

/** A scorer whose raw scores come from the cache where it has them; `real()` opens the model. */
export interface CachingScorer extends Scorer {
  readonly stats: CacheStats;
  real(): Promise<Scorer>;
}

interface Recorded extends PreparedRequest {
  state: string;
  questions: ScoreQuestion[];
  framing: Framing;
  keys: string[];
}

/**
 * Key of one question's scores: what the model reads (the framing's mode, state prefix, question prompt and
 * continuations, as pieces) and `model` (the weights and how they are evaluated). A question's scores are the
 * same alone and among others (`openScorer`), so they are cached per question whatever request asked it.
 */
export function scoreKey(model: string, framing: Framing, state: string, q: ScoreQuestion): string {
  const read = [
    model,
    framing.mode,
    framing.statePrefix(state),
    framing.questionPrompt(q),
    framing.continuations(q),
  ];
  return createHash("sha256").update(JSON.stringify(read)).digest("hex").slice(0, 32);
}

/**
 * Raw scores cached in `<dir>/scores.jsonl`, one line per question, behind the `Scorer` interface, so an
 * `Engine` (any calibration, phrasings, content-free passes) answers from the cache as it would from the model.
 * `prepare` tokenizes nothing (its plan reports 0 tokens; the model checks the size when it scores); `score`
 * sends only the questions the cache lacks to the model, opened by `open` on first need, in one request.
 * `model` names the weights and their evaluation (it is part of every key).
 */
export function cachingScorer(
  open: () => Promise<Scorer>,
  dir: string,
  model: string,
  contextSize: number,
): CachingScorer {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "scores.jsonl");
  const cache = new Map<string, Cached>();
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  // A torn last line (an interrupted run) is ended, so the next line written after it stays whole.
  if (text && !text.endsWith("\n")) appendFileSync(path, "\n");
  for (const line of text.split("\n")) {
    try {
      const r = JSON.parse(line) as { key: string; scores: (number | null)[]; tokens: number[] };
      // JSON has no −∞ (a label the model cannot reach): written as null.
      cache.set(r.key, { scores: r.scores.map((v) => v ?? Number.NEGATIVE_INFINITY), tokens: r.tokens });
    } catch {
      // an empty or torn line: that question is scored again
    }
  }
  let inner: Promise<Scorer> | undefined;
  const real = () => {
    inner ??= open();
    return inner;
  };
  const stats: CacheStats = { scored: 0, cached: 0, seconds: 0, tokensEvaluated: 0 };
  const prepare = (state: string, questions: ScoreQuestion[], framing: Framing): Recorded => ({
    state,
    questions,
    framing,
    keys: questions.map((q) => scoreKey(model, framing, state, q)),
    peakTokens: 0,
    costTokens: 0,
  });
  const score = async (prepared: PreparedRequest): Promise<RawScores> => {
    const r = prepared as Recorded;
    const missing = r.keys.flatMap((k, i) => (cache.has(k) ? [] : [i]));
    const meter = { tokens_evaluated: 0, tokens_reused: 0 };
    if (missing.length) {
      const t0 = performance.now();
      const s = await real();
      const raw = await s.score(
        s.prepare(
          r.state,
          missing.map((i) => r.questions[i] as ScoreQuestion),
          r.framing,
        ),
      );
      const lines = missing.map((i, k) => {
        const got = { scores: raw.scores[k] as number[], tokens: raw.tokensPerOutcome[k] as number[] };
        cache.set(r.keys[i] as string, got);
        return JSON.stringify({
          key: r.keys[i],
          ...got,
          scores: got.scores.map((v) => (v === -Infinity ? null : v)),
        });
      });
      appendFileSync(path, `${lines.join("\n")}\n`);
      Object.assign(meter, raw.meter);
      stats.scored += missing.length;
      stats.seconds += (performance.now() - t0) / 1000;
      stats.tokensEvaluated += raw.meter.tokens_evaluated;
    }
    stats.cached += r.keys.length - missing.length;
    const got = r.keys.map((k) => cache.get(k) as Cached);
    return { scores: got.map((g) => g.scores), tokensPerOutcome: got.map((g) => g.tokens), meter };
  };
  return {
    get model(): Scorer["model"] {
      throw new Error("a caching scorer has no model loaded; use real()");
    },
    contextSize,
    get numerics(): NumericsClass {
      throw new Error("a caching scorer computes in the class of the scorer real() opens");
    },
    stats,
    real,
    prepare,
    score,
    rawScores: (state, questions, framing) => score(prepare(state, questions, framing)),
    async close() {
      if (inner) await (await inner).close();
    },
  };
}
