import type { Row } from "./report";

const f = (v: number | undefined, d = 3) => (v === undefined || Number.isNaN(v) ? "–" : v.toFixed(d));
const arrow = (a: number | undefined, b: number | undefined, d = 3) => `${f(a, d)} → ${f(b, d)}`;
const affine = (t: number, b: number[]) => `T ${f(t, 2)}, b [${b.map((v) => f(v, 2)).join(", ")}]`;
const fitText = (r: Row) => {
  const { temperature, bias, length_normalize, temperature_by_outcomes: tk, bias_by_outcomes: bk } = r.e.fit;
  const perK = Object.keys(tk ?? {}).map(
    (k) => `; K=${k}: ${affine(tk?.[k] ?? temperature, bk?.[k] ?? bias)}`,
  );
  return `${affine(temperature, bias)}${perK.join("")}${length_normalize ? ", len-norm" : ""}`;
};

/** Every variant × type: held-out metrics before → after calibration. */
export function compareTable(rows: Row[]): string {
  const head =
    "| framing | type | n (train/held-out) | accuracy | AUC (check) | ECE-15 | Brier | NLL | train NLL (fit) | fit |";
  const lines = rows.map((r) => {
    const nTrain = "";
    const { before: b, after: a } = r.e;
    return `| \`${r.framing}\` | ${r.e.type} | ${nTrain}${a.n} | ${arrow(b.accuracy, a.accuracy)} | ${r.e.type === "check" ? arrow(b.auc, a.auc) : "–"} | ${arrow(b.ece, a.ece)} | ${arrow(b.brier, a.brier)} | ${arrow(b.nll, a.nll)} | ${f(r.e.trainFitNll)} | ${fitText(r)} |`;
  });
  return [
    head.replace("n (train/held-out)", "n held-out"),
    "|---|---|---|---|---|---|---|---|---|---|",
    ...lines,
  ].join("\n");
}

/** The chosen framing per type on the full held-out split. */
export function finalTable(rows: Row[], title: string): string {
  const head = `| ${title} | type (items) | n held-out | accuracy | AUC | ECE-15 (top label) | ECE-15 noise floor | ECE-15 P(yes) | Brier | NLL | mean confidence | fit |`;
  const lines = rows.map((r) => {
    const { before: b, after: a } = r.e;
    const chk = r.e.type === "check";
    return `| \`${r.framing}\` | ${r.e.type} (${r.scope ?? "full"}) | ${a.n} | ${arrow(b.accuracy, a.accuracy)} | ${chk ? arrow(b.auc, a.auc) : "–"} | ${arrow(b.ece, a.ece)} | ${arrow(b.eceFloor, a.eceFloor)} | ${chk ? arrow(b.eceYes, a.eceYes) : "–"} | ${arrow(b.brier, a.brier)} | ${arrow(b.nll, a.nll)} | ${arrow(b.meanConfidence, a.meanConfidence)} | ${fitText(r)} |`;
  });
  return [head, "|---|---|---|---|---|---|---|---|---|---|---|---|", ...lines].join("\n");
}

export function sourceTable(
  rows: {
    type: string;
    source: string;
    n: number;
    accuracy: number;
    meanConfidence: number;
    baseline?: number;
  }[],
): string {
  return [
    "| type | generator | n | accuracy | mean confidence | baseline accuracy (code-letters) |",
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.type} | ${r.source} | ${r.n} | ${f(r.accuracy, 2)} | ${f(r.meanConfidence, 2)} | ${f(r.baseline, 2)} |`,
    ),
  ].join("\n");
}
