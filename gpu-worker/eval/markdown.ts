import type { Report } from "../../schema/metrics";

/** A metric for a table: `d` decimals, "–" when missing or not a number. */
export const fmt = (v: number | undefined, d = 3) =>
  v === undefined || Number.isNaN(v) ? "–" : v.toFixed(d);

const METRICS = [
  "n",
  "accuracy",
  "AUC (check)",
  "ECE-15",
  "ECE-15 noise floor",
  "ECE-15 P(yes)",
  "Brier",
  "NLL",
  "mean confidence",
];

/** A markdown table: the `keys` columns of each row, then its metrics (the issue's, side by side). */
export function metricsTable(keys: string[], rows: { keys: string[]; r: Report }[]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    line([...keys, ...METRICS]),
    line([...keys, ...METRICS].map(() => "---")),
    ...rows.map(({ keys: k, r }) =>
      line([
        ...k,
        String(r.n),
        ...[r.accuracy, r.auc, r.ece, r.eceFloor, r.eceYes, r.brier, r.nll, r.meanConfidence].map((v) =>
          fmt(v),
        ),
      ]),
    ),
  ].join("\n");
}
