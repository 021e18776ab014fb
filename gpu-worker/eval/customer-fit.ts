import { applyMap } from "../../schema/calibration-map";
import { auc, eceNoiseFloor, topLabelEce } from "../../schema/metrics";
import { Rng } from "../../schema/rng";
import { chooseFit, meanNll } from "../../workers/calibrations/cross-validate";
import { fitMap, type Labelled } from "../../workers/calibrations/fit";
import { answerIndex, type EvalItem } from "./dataset/item";
import { fmt } from "./markdown";
import { familyOf } from "./report";

/** `n` of `items`, a seeded shuffle's first (labels a customer collects are a sample, not the set's first rows). */
function sample<T>(items: readonly T[], n: number, seed: number): T[] {
  const rng = new Rng(seed);
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a.slice(0, n);
}

/** One family measured as one customer's question: fitted on n of its train items, measured on its held-out. */
export interface CustomerFitRow {
  family: string;
  n: number;
  method: string;
  held: number;
  before: Measured;
  after: Measured;
}

interface Measured {
  accuracy: number;
  ece: number;
  floor: number;
  nll: number;
  auc?: number;
}

function measured(dists: number[][], items: Labelled[], check: boolean): Measured {
  const ys = items.map((e) => e.y);
  const ok = dists.filter((p, j) => p.indexOf(Math.max(...p)) === ys[j]).length;
  const m: Measured = {
    accuracy: ok / Math.max(1, items.length),
    ece: topLabelEce(dists, ys),
    floor: eceNoiseFloor(dists.map((p) => Math.max(...p))),
    nll: meanNll(dists, items),
  };
  if (check)
    m.auc = auc(
      dists.map((p) => p[0] as number),
      ys.map((y) => y === 0),
    );
  return m;
}

/**
 * The "calibrated on your labels" measurement (issue 44): each family of a set is one customer's question; the
 * evaluation's fit (`chooseFit`, the one the API runs) on n of its train items (a seeded sample), applied to its
 * held-out items, or refused as the API refuses it when its cross-validated NLL gains nothing.
 * A family whose questions differ in their number of outcomes is fitted with a temperature alone.
 */
export function customerFits(
  items: EvalItem[],
  answered: Map<string, number[]>,
  sizes: number[],
): CustomerFitRow[] {
  const rows: CustomerFitRow[] = [];
  const families = [...new Set(items.map(familyOf))].sort();
  for (const family of families) {
    const of = items.filter((it) => familyOf(it) === family && answered.has(it.id));
    const labelled = (it: EvalItem): Labelled => ({ p: answered.get(it.id) as number[], y: answerIndex(it) });
    const train = of.filter((it) => it.split === "train").map(labelled);
    const held = of.filter((it) => it.split === "heldout").map(labelled);
    const type = of[0]?.type;
    if (!type || held.length === 0) continue;
    const ks = new Set([...train, ...held].map((e) => e.p.length));
    const k = [...ks][0] as number;
    const before = measured(
      held.map((e) => [...e.p]),
      held,
      type === "check",
    );
    for (const n of sizes) {
      if (train.length < n) continue;
      const fitOn = sample(train, n, n);
      const chosen = ks.size === 1 ? chooseFit(type, k, fitOn) : null;
      const map = chosen?.map ?? fitMap(type, k, fitOn, "temperature");
      // As the API does: a fit whose cross-validated NLL does not beat the version's is refused, nothing applied.
      const refused = chosen !== null && !(chosen.nllAfter < chosen.nllBefore);
      const after = refused
        ? before
        : measured(
            held.map((e) => applyMap(map, e.p)),
            held,
            type === "check",
          );
      const method = refused ? "none (calibration_no_gain)" : (chosen?.method ?? "temperature");
      rows.push({ family, n, method, held: held.length, before, after });
    }
  }
  return rows;
}

/** The rows as a markdown table (docs/quality.md). */
export function customerFitTable(rows: CustomerFitRow[]): string {
  const head =
    "| family | labels | method | held-out | accuracy before → after | ECE-15 before → after (floor) | NLL before → after | AUC before → after |\n|---|---|---|---|---|---|---|---|";
  const line = (r: CustomerFitRow) =>
    `| ${r.family} | ${r.n} | ${r.method} | ${r.held} | ${fmt(r.before.accuracy)} → ${fmt(r.after.accuracy)} | ${fmt(r.before.ece)} → ${fmt(r.after.ece)} (${fmt(r.after.floor)}) | ${fmt(r.before.nll)} → ${fmt(r.after.nll)} | ${r.before.auc === undefined ? "–" : `${fmt(r.before.auc)} → ${fmt(r.after.auc ?? 0)}`} |`;
  return [head, ...rows.map(line)].join("\n");
}
