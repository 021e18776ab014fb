/**
 * Calibration methods over several phrasings (issue #13): per item, each phrasing's scores minus its scores on
 * the content-free state (contextual) or raw, averaged over the phrasings; then
 *   z_i = d̄_i · (a + b · agree) + bias_i,  p = softmax(z)
 * where `agree` is the share of phrasings whose own argmax equals the average's argmax (a phrasing-agreement
 * feature: where the model has no signal, the phrasings disagree and the answer is pulled toward uniform).
 * Fitted by minimising NLL on train items only (convex in a, b, bias).
 */
import { type PhraseMethod, phraseFeatures } from "../../src/calibration";
import { answerIndex, type EvalItem } from "../dataset/item";
import { type Report, report } from "../metrics";
import { lookup, type PhrasedScores } from "./score-phrasings";

export interface MethodSpec {
  phrasings: string[];
  contextual: boolean;
  /** Fit the agreement slope b (else b = 0). */
  agreement: boolean;
  /** check: a yes bias; pick: none (options are shuffled, a position bias means nothing). */
  bias: boolean;
}

export interface Row {
  item: EvalItem;
  d: number[];
  agree: number;
  answer: number;
}

/** Feature rows of `items` under `spec` (items missing a phrasing's scores are skipped). */
export function rows(items: EvalItem[], spec: MethodSpec, cache: Map<string, PhrasedScores>): Row[] {
  return items.flatMap((item) => {
    const per: number[][] = [];
    for (const id of spec.phrasings) {
      const s = lookup(cache, id, item, false);
      const c = spec.contextual ? lookup(cache, id, item, true) : undefined;
      if (!s || (spec.contextual && !c)) return [];
      per.push(s.scores);
      if (c) per.push(c.scores);
    }
    const scores = spec.phrasings.map((_, k) => per[spec.contextual ? 2 * k : k] as number[]);
    const free = spec.contextual ? spec.phrasings.map((_, k) => per[2 * k + 1] as number[]) : undefined;
    const f = phraseFeatures(scores, free);
    return [{ item, d: f.mean, agree: f.agree, answer: answerIndex(item) }];
  });
}

export function probs(r: Row, m: PhraseMethod): number[] {
  const scale = m.scale + m.agreement_slope * r.agree;
  const z = r.d.map((v, i) => v * scale + (m.bias[i] ?? 0));
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const s = e.reduce((x, y) => x + y, 0);
  return e.map((v) => v / s);
}

function loss(rs: Row[], m: PhraseMethod): number {
  let l = 0;
  for (const r of rs) l -= Math.log(Math.max(1e-12, probs(r, m)[r.answer] as number));
  return l / Math.max(1, rs.length);
}

/** Fits (scale, agreement_slope, bias[0]) by coordinate-free gradient descent with backtracking. */
export function fitMethod(train: Row[], spec: MethodSpec): PhraseMethod {
  let m: PhraseMethod = { scale: 1, agreement_slope: 0, bias: spec.bias ? [0, 0] : [] };
  const grad = (mm: PhraseMethod) => {
    let ga = 0;
    let gb = 0;
    let g0 = 0;
    for (const r of train) {
      const p = probs(r, mm);
      p.forEach((pi, i) => {
        const g = pi - (i === r.answer ? 1 : 0);
        ga += g * (r.d[i] as number);
        gb += g * (r.d[i] as number) * r.agree;
        if (i === 0) g0 += g;
      });
    }
    const n = Math.max(1, train.length);
    return { ga: ga / n, gb: spec.agreement ? gb / n : 0, g0: spec.bias ? g0 / n : 0 };
  };
  let cur = loss(train, m);
  let step = 0.1;
  for (let it = 0; it < 2000; it++) {
    const g = grad(m);
    const n2 = g.ga ** 2 + g.gb ** 2 + g.g0 ** 2;
    if (n2 < 1e-12) break;
    let ok = false;
    while (step > 1e-9) {
      const next: PhraseMethod = {
        scale: m.scale - step * g.ga,
        agreement_slope: m.agreement_slope - step * g.gb,
        bias: spec.bias ? [(m.bias[0] ?? 0) - step * g.g0, 0] : [],
      };
      const l = loss(train, next);
      if (l <= cur - 1e-4 * step * n2) {
        [m, cur, ok] = [next, l, true];
        step *= 1.5;
        break;
      }
      step /= 2;
    }
    if (!ok) break;
  }
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return { scale: round(m.scale), agreement_slope: round(m.agreement_slope), bias: m.bias.map(round) };
}

export function measureRows(rs: Row[], m: PhraseMethod, check: boolean): Report {
  return report(
    rs.map((r) => probs(r, m)),
    rs.map((r) => r.answer),
    check,
  );
}
