import { answerIndex, type EvalItem } from "../dataset/item";
import { argmax, type Report, report } from "../metrics";
import { reliabilityBins } from "../png";
import { fmt } from "./markdown-real";

/** A real-text item's family: the part of its source before the first `:`. */
export const familyOf = (it: EvalItem) => it.source.split(":")[0] as string;

/** An item with the probabilities a calibration gave it. */
export interface Scored {
  item: EvalItem;
  p: number[];
}

/** The metrics over scored items. */
export const scoredReport = (xs: Scored[], check: boolean): Report =>
  report(
    xs.map((x) => x.p),
    xs.map((x) => answerIndex(x.item)),
    check,
  );

/** Reliability bins of the top-label confidence. */
export const scoredBins = (xs: Scored[]) =>
  reliabilityBins(
    xs.map((x) => Math.max(...x.p)),
    xs.map((x) => argmax(x.p) === answerIndex(x.item)),
  );

/** One family's table row, before → after: accuracy, AUC, ECE-15 (its noise floor), Brier, mean confidence. */
export function familyChangeRow(
  type: string,
  family: string,
  before: Scored[],
  after: Scored[],
  check: boolean,
): string {
  const b = scoredReport(
    before.filter((x) => familyOf(x.item) === family),
    check,
  );
  const a = scoredReport(
    after.filter((x) => familyOf(x.item) === family),
    check,
  );
  return `| ${type} | ${family} | ${a.n} | ${fmt(b.accuracy)} → ${fmt(a.accuracy)} | ${fmt(b.auc)} → ${fmt(a.auc)} | ${fmt(b.ece)} → ${fmt(a.ece)} (${fmt(a.eceFloor)}) | ${fmt(b.brier)} → ${fmt(a.brier)} | ${fmt(b.meanConfidence)} → ${fmt(a.meanConfidence)} |`;
}
