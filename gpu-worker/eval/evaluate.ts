import type { QuestionType } from "../src/calibration";
import { answerIndex, type EvalItem } from "./dataset/item";
import { calibrate, type Example, fitBest, type TypeFit } from "./fit";
import { type Report, report } from "./metrics";
import type { ScoredItem } from "./score-cache";

/** One (framing, type) evaluated: fit on train, metrics on held-out before and after calibration. */
export interface TypeEval {
  type: QuestionType;
  fit: TypeFit;
  trainNll: { off: number; on: number };
  /** Train NLL of the chosen fit (the selection criterion between framings). */
  trainFitNll: number;
  before: Report;
  after: Report;
  heldout: { item: EvalItem; raw: number[]; before: number[]; after: number[] }[];
}

const IDENTITY: TypeFit = { temperature: 1, bias: [] };

function examples(items: EvalItem[], results: Map<string, ScoredItem>): { item: EvalItem; ex: Example }[] {
  return items.flatMap((item) => {
    const r = results.get(item.id);
    return r ? [{ item, ex: { scores: r.scores, tokens: r.tokens, answer: answerIndex(item) } }] : [];
  });
}

export function evaluateType(
  type: QuestionType,
  items: EvalItem[],
  results: Map<string, ScoredItem>,
): TypeEval | undefined {
  const all = examples(
    items.filter((i) => i.type === type),
    results,
  );
  const train = all.filter((x) => x.item.split === "train").map((x) => x.ex);
  const held = all.filter((x) => x.item.split === "heldout");
  if (!train.length || !held.length) return undefined;
  const { fit, trainNll } = fitBest(type, train);
  const heldout = held.map(({ item, ex }) => ({
    item,
    raw: ex.scores,
    before: calibrate(type, IDENTITY, ex),
    after: calibrate(type, fit, ex),
  }));
  const answers = held.map((x) => x.ex.answer);
  const isCheck = type === "check";
  return {
    type,
    fit,
    trainNll,
    trainFitNll: Math.min(trainNll.off, trainNll.on),
    before: report(
      heldout.map((h) => h.before),
      answers,
      isCheck,
    ),
    after: report(
      heldout.map((h) => h.after),
      answers,
      isCheck,
    ),
    heldout,
  };
}

/** Held-out accuracy and mean confidence per generator source (after calibration). */
export function bySource(
  e: TypeEval,
): { source: string; n: number; accuracy: number; meanConfidence: number }[] {
  const groups = new Map<string, { n: number; hit: number; conf: number }>();
  for (const h of e.heldout) {
    const key = h.item.source.split(":")[0] as string;
    const g = groups.get(key) ?? { n: 0, hit: 0, conf: 0 };
    const best = h.after.indexOf(Math.max(...h.after));
    g.n++;
    g.hit += best === answerIndex(h.item) ? 1 : 0;
    g.conf += Math.max(...h.after);
    groups.set(key, g);
  }
  return [...groups].map(([source, g]) => ({
    source,
    n: g.n,
    accuracy: g.hit / g.n,
    meanConfidence: g.conf / g.n,
  }));
}
