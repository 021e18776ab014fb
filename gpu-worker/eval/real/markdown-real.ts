import type { Report } from "../metrics";

/** A metric for a table: `d` decimals, "–" when missing or not a number. */
export const fmt = (v: number | undefined, d = 3) =>
  v === undefined || Number.isNaN(v) ? "–" : v.toFixed(d);

/** One row per measured (label, report): the metrics side by side. */
export function metricsTable(first: string, rows: { label: string; type: string; r: Report }[]): string {
  return [
    `| ${first} | type | n | accuracy | AUC (check) | ECE-15 | ECE-15 noise floor | ECE-15 P(yes) | Brier | NLL | mean confidence |`,
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      ({ label, type, r }) =>
        `| ${label} | ${type} | ${r.n} | ${fmt(r.accuracy)} | ${fmt(r.auc)} | ${fmt(r.ece)} | ${fmt(r.eceFloor)} | ${fmt(r.eceYes)} | ${fmt(r.brier)} | ${fmt(r.nll)} | ${fmt(r.meanConfidence)} |`,
    ),
  ].join("\n");
}

export interface FamilyRow {
  type: string;
  family: string;
  n: number;
  chance: number;
  majority: number;
  baseline?: number;
  old?: number;
  identity: number;
  chosen: number;
  auc?: number;
  ece: number;
  meanConfidence: number;
}

/** Held-out accuracy per task family: the chosen calibration next to the answer-code baseline, uniform and the old calibration. */
export function familyTable(rows: FamilyRow[]): string {
  return [
    "| type | family | n | uniform (1/K) | majority class | answer-code baseline | old `plain-mix-2` + `cal-20261121-3` | chosen framing, raw | chosen, calibrated | AUC (check) | ECE-15 | mean confidence |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.type} | ${r.family} | ${r.n} | ${fmt(r.chance, 2)} | ${fmt(r.majority, 2)} | ${fmt(r.baseline, 2)} | ${fmt(r.old, 2)} | ${fmt(r.identity, 2)} | ${fmt(r.chosen, 2)} | ${fmt(r.auc, 3)} | ${fmt(r.ece, 3)} | ${fmt(r.meanConfidence, 2)} |`,
    ),
  ].join("\n");
}
