/**
 * Calibration methods on the real-text set: each fitted on train items only, measured on any item set.
 * `identity` raw scores; `fitted` temperature + bias per type (and per outcome count) on raw scores;
 * `contextual` raw minus content-free scores (Zhao et al. 2021); `contextual-fitted` both.
 */
import { type Calibration, type QuestionType, subtractContentFree } from "../../src/calibration";
import { answerIndex, type EvalItem } from "../dataset/item";
import { calibrate, type Example, fitBest, type TypeFit } from "../fit";
import { type Report, report } from "../metrics";
import type { RealScores } from "./score-real";

export const METHODS = ["identity", "fitted", "contextual", "contextual-fitted"] as const;
export type Method = (typeof METHODS)[number];

const IDENTITY: TypeFit = { temperature: 1, bias: [] };
const isContextual = (m: Method) => m.startsWith("contextual");

/** Items of `type` that have scores (and content-free scores when `contextual`), as fitting examples. */
export function realExamples(
  type: QuestionType,
  items: EvalItem[],
  rs: RealScores,
  contextual: boolean,
): { item: EvalItem; ex: Example }[] {
  return items.flatMap((item) => {
    const r = rs.state.get(item.id);
    const c = rs.free.get(item.id);
    if (item.type !== type || !r || (contextual && !c)) return [];
    const scores = c && contextual ? subtractContentFree(r.scores, c.scores) : r.scores;
    return [{ item, ex: { scores, tokens: r.tokens, answer: answerIndex(item) } }];
  });
}

/** The fit of `method` for `type` on the train items of `items` (identity methods fit nothing). */
export function fitMethod(type: QuestionType, method: Method, items: EvalItem[], rs: RealScores): TypeFit {
  if (method === "identity" || method === "contextual") return IDENTITY;
  const train = realExamples(
    type,
    items.filter((i) => i.split === "train"),
    rs,
    isContextual(method),
  );
  return fitBest(
    type,
    train.map((x) => x.ex),
  ).fit;
}

export interface Measured {
  report: Report;
  rows: { item: EvalItem; p: number[] }[];
}

/** Metrics of `fit` (applied after the method's score transform) on `items` of `type`. */
export function measure(
  type: QuestionType,
  method: Method,
  fit: TypeFit,
  items: EvalItem[],
  rs: RealScores,
): Measured {
  const xs = realExamples(type, items, rs, isContextual(method));
  const rows = xs.map(({ item, ex }) => ({ item, p: calibrate(type, fit, ex) }));
  return {
    report: report(
      rows.map((r) => r.p),
      xs.map((x) => x.ex.answer),
      type === "check",
    ),
    rows,
  };
}

/** Metrics of a committed artifact's type calibration on raw scores (the old calibration, measured here). */
export function measureArtifact(
  type: QuestionType,
  cal: Calibration,
  items: EvalItem[],
  rs: RealScores,
): Measured {
  return measure(type, "identity", cal.types[type], items, rs);
}

/** Groups measured rows by task family (the `source` prefix) and reports each. */
export function byFamily(type: QuestionType, rows: Measured["rows"]): { family: string; report: Report }[] {
  const groups = new Map<string, Measured["rows"]>();
  for (const r of rows) {
    const fam = r.item.source.split(":")[0] as string;
    groups.set(fam, [...(groups.get(fam) ?? []), r]);
  }
  return [...groups]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([family, rs]) => ({
      family,
      report: report(
        rs.map((r) => r.p),
        rs.map((r) => answerIndex(r.item)),
        type === "check",
      ),
    }));
}
