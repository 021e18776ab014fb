import type { EngineAnswer } from "../../schema/engine-protocol";
import { auc, ece } from "../../schema/metrics";

/** An item's expected answer to one question: a pick label, a rate level, or a check's yes / no. */
export type Expected = string | boolean;

/** Accuracy targets whose smallest `min_confidence` an evaluation reports. */
export const ACCURACY_TARGETS = [0.9, 0.95, 0.99] as const;
/** Equal-width bins of the reliability diagram and of ECE-15. */
export const RELIABILITY_BINS = 15;
/** The `min_confidence` steps of the risk–coverage curve: 0, 0.05, …, 1. */
export const COVERAGE_STEPS = Array.from({ length: 21 }, (_, i) => i / 20);

/** One answered question of one item, reduced to what the metrics need. */
export interface Scored {
  type: EngineAnswer["type"];
  correct: boolean;
  /** Probability of the predicted label (the reliability diagram's x). */
  top: number;
  /** The answer's `confidence`, the value `min_confidence` is compared with. */
  confidence: number;
  /** Brier score: check (p(yes) − y)²; pick and rate the sum over labels of (p − 1[label is expected])². */
  brier: number;
  /** Rate: |rating − expected level index|. */
  levelError?: number;
  /** Check: probability of yes, and whether yes was expected (for the AUC). */
  yes?: { p: number; expected: boolean };
}

/** Scores one answer against its expected label (the label is known to be valid for the question). */
export function scoreAnswer(a: EngineAnswer, expected: Expected): Scored {
  if (a.type === "check") {
    const y = expected === true ? 1 : 0;
    const predictedYes = a.probability >= 0.5;
    return {
      type: "check",
      correct: predictedYes === (y === 1),
      top: Math.max(a.probability, 1 - a.probability),
      confidence: a.confidence,
      brier: (a.probability - y) ** 2,
      yes: { p: a.probability, expected: y === 1 },
    };
  }
  const probs = a.type === "pick" ? a.probabilities.map(([, p]) => p) : a.probabilities;
  const labels = a.type === "pick" ? a.probabilities.map(([l]) => l) : a.levels;
  const want = labels.indexOf(expected as string);
  let best = 0;
  for (let i = 1; i < probs.length; i++) if (probs[i]! > probs[best]!) best = i;
  const brier = probs.reduce((s, p, i) => s + (p - (i === want ? 1 : 0)) ** 2, 0);
  const correct = a.type === "pick" ? a.choice === expected : best === want;
  const scored: Scored = { type: a.type, correct, top: probs[best] ?? 0, confidence: a.confidence, brier };
  if (a.type === "rate") scored.levelError = Math.abs(a.rating - want);
  return scored;
}

export interface ReliabilityBin {
  lower: number;
  upper: number;
  count: number;
  /** Mean probability of the predicted label in the bin; null when empty. */
  mean_probability: number | null;
  accuracy: number | null;
}

export interface CoveragePoint {
  min_confidence: number;
  coverage: number;
  /** Accuracy of the answers kept (confidence ≥ min_confidence); null when none is kept. */
  accuracy: number | null;
}

export interface Threshold {
  target: number;
  /** The smallest `min_confidence` whose kept answers reach the target, or null. */
  min_confidence: number | null;
  coverage: number | null;
}

export interface QuestionMetrics {
  n: number;
  accuracy: number;
  /** Rate questions: mean |rating − expected level|; null otherwise. */
  mean_absolute_level_error: number | null;
  /** Check questions with both answers expected at least once: ROC AUC of the probability of yes. */
  auc: number | null;
  ece15: number;
  brier: number;
  reliability: ReliabilityBin[];
  risk_coverage: CoveragePoint[];
  thresholds: Threshold[];
}

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** ROC AUC (Mann–Whitney U, ties counted half); null without both classes. */
export function rocAuc(points: ReadonlyArray<{ p: number; expected: boolean }>): number | null {
  const value = auc(
    points.map((x) => x.p),
    points.map((x) => x.expected),
  );
  return Number.isNaN(value) ? null : value;
}

/** The 15 equal-width bins of the probability of the predicted label, and ECE-15 over them. */
export function reliability(scored: readonly Scored[]): { bins: ReliabilityBin[]; ece: number } {
  const bins = Array.from({ length: RELIABILITY_BINS }, () => ({ n: 0, p: 0, ok: 0 }));
  for (const s of scored) {
    const b = bins[Math.min(RELIABILITY_BINS - 1, Math.floor(s.top * RELIABILITY_BINS))]!;
    b.n++;
    b.p += s.top;
    b.ok += s.correct ? 1 : 0;
  }
  const out = bins.map((b, i) => {
    return {
      lower: r4(i / RELIABILITY_BINS),
      upper: r4((i + 1) / RELIABILITY_BINS),
      count: b.n,
      mean_probability: b.n ? r4(b.p / b.n) : null,
      accuracy: b.n ? r4(b.ok / b.n) : null,
    };
  });
  const topLabel = ece(
    scored.map((s) => s.top),
    scored.map((s) => s.correct),
    RELIABILITY_BINS,
  );
  return { bins: out, ece: scored.length ? topLabel : 0 };
}

/** Coverage and accuracy of the answers kept at `min_confidence` t (kept: confidence ≥ t). */
function keptAt(scored: readonly Scored[], t: number): { kept: number; ok: number } {
  let kept = 0;
  let ok = 0;
  for (const s of scored)
    if (s.confidence >= t) {
      kept++;
      ok += s.correct ? 1 : 0;
    }
  return { kept, ok };
}

/**
 * For each target, the smallest `min_confidence` whose kept answers are at least that accurate. Candidates are
 * 0 and every confidence seen (raising the threshold between two seen values keeps the same answers).
 */
export function thresholds(scored: readonly Scored[]): Threshold[] {
  const byConfidence = [...scored].sort((a, b) => b.confidence - a.confidence);
  // Walk from the most confident down: kept(t) for t = each distinct confidence, highest first.
  const candidates: Array<{ t: number; kept: number; ok: number }> = [];
  let kept = 0;
  let ok = 0;
  for (let i = 0; i < byConfidence.length; i++) {
    kept++;
    ok += byConfidence[i]!.correct ? 1 : 0;
    const next = byConfidence[i + 1];
    if (!next || next.confidence !== byConfidence[i]!.confidence)
      candidates.push({ t: byConfidence[i]!.confidence, kept, ok });
  }
  // The last candidate keeps everything; t = 0 keeps the same set.
  if (candidates.length > 0) candidates[candidates.length - 1]!.t = 0;
  const ascending = candidates.reverse();
  return ACCURACY_TARGETS.map((target) => {
    const hit = ascending.find((c) => c.ok / c.kept >= target - 1e-12);
    return hit
      ? { target, min_confidence: r4(hit.t), coverage: r4(hit.kept / scored.length) }
      : { target, min_confidence: null, coverage: null };
  });
}

/** Every metric of one question id over its scored items (n ≥ 1). */
export function questionMetrics(scored: readonly Scored[]): QuestionMetrics {
  const { bins, ece } = reliability(scored);
  const rated = scored.filter((s) => s.levelError !== undefined).map((s) => s.levelError!);
  const checks = scored.flatMap((s) => (s.yes ? [s.yes] : []));
  const auc = checks.length > 0 ? rocAuc(checks) : null;
  return {
    n: scored.length,
    accuracy: r4(scored.filter((s) => s.correct).length / scored.length),
    mean_absolute_level_error: rated.length > 0 ? r4(mean(rated)) : null,
    auc: auc === null ? null : r4(auc),
    ece15: r4(ece),
    brier: r4(mean(scored.map((s) => s.brier))),
    reliability: bins,
    risk_coverage: COVERAGE_STEPS.map((t) => {
      const k = keptAt(scored, t);
      return {
        min_confidence: t,
        coverage: r4(k.kept / scored.length),
        accuracy: k.kept ? r4(k.ok / k.kept) : null,
      };
    }),
    thresholds: thresholds(scored),
  };
}

/** One scored item: its answers (engine order) and expected labels by question id. */
export interface ScoredItem {
  answers: ReadonlyArray<{ id: string; answer: EngineAnswer }>;
  expected: Readonly<Record<string, Expected>>;
}

/** Metrics per question id, in the order question ids first appear among the items. */
export function evaluationMetrics(items: readonly ScoredItem[]): Record<string, QuestionMetrics> {
  const byQuestion = new Map<string, Scored[]>();
  for (const item of items)
    for (const { id, answer } of item.answers) {
      const want = item.expected[id];
      if (want === undefined) continue;
      const list = byQuestion.get(id) ?? [];
      list.push(scoreAnswer(answer, want));
      byQuestion.set(id, list);
    }
  return Object.fromEntries([...byQuestion].map(([id, scored]) => [id, questionMetrics(scored)]));
}
