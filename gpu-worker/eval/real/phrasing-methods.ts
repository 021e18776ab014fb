/**
 * Calibration methods over several phrasings (issue #13), fitted by NLL on train items only (convex):
 *   z_i = scale · X_i + free_weight · C̄_i + agreement_slope · agree · D̄_i + bias_i
 * with S̄ / C̄ the phrasings' mean scores on the state / on the content-free state, D̄ = S̄ − C̄, X = D̄
 * (`contextual`: pure contextual calibration) or S̄ (`raw`: no C̄; `partial`: C̄'s weight fitted), and `agree` the
 * share of phrasings whose own top outcome is the mean's (`phraseFeatures`, the engine's own code).
 */

import {
  type PhraseFeatures,
  type PhraseMethod,
  phraseFeatures,
  phraseLogits,
  softmax,
} from "../../src/calibration";
import { answerIndex, type EvalItem } from "../dataset/item";
import { descend } from "../descend";
import { type Report, report } from "../metrics";
import { lookup, type PhrasedScores } from "./score-phrasings";

export interface MethodSpec {
  phrasings: string[];
  mode: "raw" | "contextual" | "partial";
  /** Fit the agreement slope (else 0). */
  agreement: boolean;
  /** check: a yes bias; pick: none (options are shuffled, a position bias means nothing). */
  bias: boolean;
}

export interface Row {
  item: EvalItem;
  f: PhraseFeatures;
  answer: number;
}

/** Feature rows of `items` under `spec` (items missing a phrasing's scores are skipped). */
export function rows(items: EvalItem[], spec: MethodSpec, cache: Map<string, PhrasedScores>): Row[] {
  return items.flatMap((item) => {
    const s = spec.phrasings.map((id) => lookup(cache, id, item, false));
    const c = spec.phrasings.map((id) => lookup(cache, id, item, true));
    if (s.some((x) => !x) || (spec.mode !== "raw" && c.some((x) => !x))) return [];
    const f = phraseFeatures(
      s.map((x) => x?.scores as number[]),
      spec.mode === "raw" ? undefined : c.map((x) => x?.scores as number[]),
    );
    return [{ item, f, answer: answerIndex(item) }];
  });
}

export const probs = (r: Row, m: PhraseMethod, spec: MethodSpec) =>
  softmax(phraseLogits(r.f, m, spec.mode !== "raw"));

function loss(rs: Row[], m: PhraseMethod, spec: MethodSpec): number {
  let l = 0;
  for (const r of rs) l -= Math.log(Math.max(1e-12, probs(r, m, spec)[r.answer] as number));
  return l / Math.max(1, rs.length);
}

/** Fits the spec's free parameters by gradient descent with backtracking (deterministic). */
export function fitMethod(train: Row[], spec: MethodSpec): PhraseMethod {
  const partial = spec.mode === "partial";
  const mk = (v: number[]): PhraseMethod => ({
    scale: v[0] as number,
    ...(partial && { free_weight: v[1] as number }),
    agreement_slope: v[2] as number,
    bias: spec.bias ? [v[3] as number, 0] : [],
  });
  const free = [true, partial, spec.agreement, spec.bias];
  let v = [1, partial ? -1 : 0, 0, 0];
  const grad = (p: number[]) => {
    const m = mk(p);
    const g = [0, 0, 0, 0];
    for (const r of train) {
      const pr = probs(r, m, spec);
      const x = spec.mode === "contextual" ? r.f.mean : r.f.state;
      pr.forEach((pi, i) => {
        const e = pi - (i === r.answer ? 1 : 0);
        g[0] = (g[0] as number) + e * (x[i] as number);
        g[1] = (g[1] as number) + e * (r.f.free[i] as number);
        g[2] = (g[2] as number) + e * r.f.agree * (r.f.mean[i] as number);
        if (i === 0) g[3] = (g[3] as number) + e;
      });
    }
    return g.map((x, k) => (free[k] ? x / Math.max(1, train.length) : 0));
  };
  v = descend(v, (p) => loss(train, mk(p), spec), grad, { iters: 3000, minGrad2: 1e-12, minStep: 1e-10 });
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  const m = mk(v);
  return {
    scale: round(m.scale),
    ...(m.free_weight !== undefined && { free_weight: round(m.free_weight) }),
    agreement_slope: round(m.agreement_slope),
    bias: m.bias.map(round),
  };
}

export function measureRows(rs: Row[], m: PhraseMethod, spec: MethodSpec, check: boolean): Report {
  return report(
    rs.map((r) => probs(r, m, spec)),
    rs.map((r) => r.answer),
    check,
  );
}
