import { argmax, type Report, report } from "../../schema/metrics";
import type { QuestionType } from "../src/calibration";
import { answerIndex, type EvalItem } from "./dataset/item";
import { metricsTable } from "./markdown";
import { type BinPoint, reliabilityBins, reliabilityPng } from "./png";

/** One way of answering (a version as served, or a calibration fitted here): item id → distribution. */
export interface Answered {
  label: string;
  p: Map<string, number[]>;
}

const TYPES: QuestionType[] = ["pick", "rate", "check"];

/** An item's family: its source up to the first `:` (a real-text task, a computed generator, a needle length). */
export const familyOf = (it: EvalItem) => it.source.split(":")[0] as string;

function measure(a: Answered, items: EvalItem[]): Report {
  const answered = items.filter((it) => a.p.has(it.id));
  return report(
    answered.map((it) => a.p.get(it.id) as number[]),
    answered.map(answerIndex),
    answered[0]?.type === "check",
  );
}

const ofType = (items: EvalItem[], t: QuestionType) => items.filter((it) => it.type === t);

/** Per type, then per family (sorted), every answered row on the same items. */
export function reportTables(rows: Answered[], items: EvalItem[]): string {
  const byType = TYPES.flatMap((t) =>
    ofType(items, t).length ? rows.map((a) => ({ keys: [a.label, t], r: measure(a, ofType(items, t)) })) : [],
  );
  const byFamily = TYPES.flatMap((t) =>
    [...new Set(ofType(items, t).map(familyOf))].sort().flatMap((fam) => {
      const its = ofType(items, t).filter((it) => familyOf(it) === fam);
      return rows.map((a) => ({ keys: [a.label, t, fam], r: measure(a, its) }));
    }),
  );
  return [
    "### Per type",
    "",
    metricsTable(["answered by", "type"], byType),
    "",
    "### Per family",
    "",
    metricsTable(["answered by", "type", "family"], byFamily),
  ].join("\n");
}

function bins(a: Answered, items: EvalItem[]): BinPoint[] {
  const ps = items.map((it) => a.p.get(it.id) as number[]);
  return reliabilityBins(
    ps.map((p) => Math.max(...p)),
    ps.map((p, i) => argmax(p) === answerIndex(items[i] as EvalItem)),
  );
}

/** Reliability diagram, a panel per type (top-label confidence, 15 bins): red = `before`, blue = `after`. */
export function reliability(before: Answered, after: Answered, items: EvalItem[]): Buffer {
  return reliabilityPng(
    TYPES.filter((t) => ofType(items, t).length).map((t) => ({
      before: bins(before, ofType(items, t)),
      after: bins(after, ofType(items, t)),
    })),
  );
}
