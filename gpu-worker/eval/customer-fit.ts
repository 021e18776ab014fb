import { applyMap } from "../../schema/calibration-map";
import { MIN_CHECK_LABELS_EACH, MIN_ITEMS } from "../../schema/calibrations";
import { type WordCounts, wordCounts } from "../../schema/learned/features";
import { applyWordsModel } from "../../schema/learned/model";
import { auc, eceNoiseFloor, topLabelEce } from "../../schema/metrics";
import { Rng } from "../../schema/rng";
import { type ChosenFit, chooseFit, itemNll, meanNll } from "../../workers/calibrations/cross-validate";
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

/**
 * One family measured as one customer's question: fitted on n of its train items, measured on its held-out.
 * `map` is today's choice (maps only, issue 44); `after` the choice that may also read the state (issue 49).
 */
export interface CustomerFitRow {
  family: string;
  n: number;
  /** n is all the family's train items (fewer than the size asked). */
  all: boolean;
  /** Below calibrations' minimum (a check 30 of each answer, else 50 items): the API answers 422 `too_few_labels`. */
  below: boolean;
  method: string;
  /** Cross-validated NLL on the n labels: the best map, and the state-reading model. */
  cvNll: { map: number; words: number | null };
  held: number;
  before: Measured;
  map: Measured;
  after: Measured;
  /** Held-out NLL, chosen minus before, and the standard error of that paired difference (0 when unchanged). */
  delta: { nll: number; se: number };
}

/** Mean and standard error of the paired per-item NLL difference `after − before` on the held-out items. */
function pairedDelta(after: number[][], held: readonly Labelled[]): { nll: number; se: number } {
  const a = itemNll(after, held);
  const b = itemNll(
    held.map((e) => e.p),
    held,
  );
  const d = a.map((x, i) => x - (b[i] as number));
  const mean = d.reduce((s, x) => s + x, 0) / Math.max(1, d.length);
  const variance = d.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, d.length - 1);
  return { nll: mean, se: Math.sqrt(variance / Math.max(1, d.length)) };
}

/** What the API answers on these labels before any fit: 422 `too_few_labels` (calibrations' minimums). */
function tooFew(items: readonly Labelled[], check: boolean): boolean {
  if (!check) return items.length < MIN_ITEMS;
  const yes = items.filter((e) => e.y === 0).length;
  return yes < MIN_CHECK_LABELS_EACH || items.length - yes < MIN_CHECK_LABELS_EACH;
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
 * A pick's outcomes in one fixed order, its labels sorted: a family's items may list the same options shuffled,
 * while one customer's question lists them in one order (what a calibration is fitted for).
 */
function canonical(it: EvalItem, p: number[]): Labelled & { words: WordCounts } {
  const words = wordCounts(it.state);
  if (it.question.type !== "pick") return { p, y: answerIndex(it), words };
  const labels = it.question.options.map((o) => o.label);
  const order = [...labels].sort();
  return {
    p: order.map((l) => p[labels.indexOf(l)] as number),
    y: order.indexOf(labels[answerIndex(it)] as string),
    words,
  };
}

/** The held-out answers under a fit, or the version's where the API would refuse it (no cross-validated gain). */
function applied(fit: ChosenFit, held: readonly (Labelled & { words: WordCounts })[]): number[][] | null {
  if (!(fit.nllAfter < fit.nllBefore)) return null;
  return held.map((e) => (fit.model ? applyWordsModel(fit.model, e.p, e.words) : applyMap(fit.map, e.p)));
}

/**
 * The "learned from your labels" measurement (issues 44 and 49): each family of a set is one customer's
 * question; the evaluation's fit (`chooseFit`, the one the API runs) on n of its train items (a seeded sample),
 * applied to its held-out items, or refused as the API refuses it when its cross-validated NLL gains nothing.
 * Twice: with maps only (today's), and with the state-reading model among the candidates. A size past the
 * family's train items is measured once on all of them. A family whose questions differ in their number of
 * outcomes is fitted with a temperature alone.
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
    const labelled = (it: EvalItem) => canonical(it, answered.get(it.id) as number[]);
    const train = of.filter((it) => it.split === "train").map(labelled);
    const held = of.filter((it) => it.split === "heldout").map(labelled);
    const type = of[0]?.type;
    if (!type || held.length === 0) continue;
    const ks = new Set([...train, ...held].map((e) => e.p.length));
    const k = [...ks][0] as number;
    const check = type === "check";
    const before = measured(
      held.map((e) => [...e.p]),
      held,
      check,
    );
    const done = new Set<number>();
    for (const asked of sizes) {
      const n = Math.min(asked, train.length);
      if (n === 0 || done.has(n)) continue;
      done.add(n);
      const fitOn = sample(train, n, n);
      const below = tooFew(fitOn, check);
      if (ks.size !== 1) {
        const map = fitMap(type, k, fitOn, "temperature");
        const dists = held.map((e) => applyMap(map, e.p));
        const after = measured(dists, held, check);
        rows.push({
          family,
          n,
          all: n < asked,
          below,
          method: "temperature",
          cvNll: { map: Number.NaN, words: null },
          held: held.length,
          before,
          map: after,
          after,
          delta: pairedDelta(dists, held),
        });
        continue;
      }
      const mapFit = chooseFit(
        type,
        k,
        fitOn.map(({ p, y }) => ({ p, y })),
      );
      const fit = chooseFit(type, k, fitOn, { readState: true });
      const mapDists = applied(mapFit, held);
      const dists = applied(fit, held);
      rows.push({
        family,
        n,
        all: n < asked,
        below,
        method: dists ? fit.method : "none (calibration_no_gain)",
        cvNll: {
          map: mapFit.nllAfter,
          words: fit.tried.find((t) => t.method === "state_words")?.nll ?? null,
        },
        held: held.length,
        before,
        map: mapDists ? measured(mapDists, held, check) : before,
        after: dists ? measured(dists, held, check) : before,
        delta: dists ? pairedDelta(dists, held) : { nll: 0, se: 0 },
      });
    }
  }
  return rows;
}

/** The rows as a markdown table (docs/quality.md). */
export function customerFitTable(rows: CustomerFitRow[]): string {
  const head =
    "| family | labels | chosen | CV NLL map / words | held-out | AUC before → map → chosen | accuracy before → map → chosen | ECE-15 before → map → chosen (floor) | NLL before → map → chosen | Δ NLL chosen − before (± SE) |\n|---|---|---|---|---|---|---|---|---|---|";
  const three = (f: (m: Measured) => number | undefined, r: CustomerFitRow) =>
    [r.before, r.map, r.after].map((m) => fmt(f(m) ?? Number.NaN)).join(" → ");
  const line = (r: CustomerFitRow) =>
    `| ${r.family} | ${r.n}${r.all ? " (all)" : ""}${r.below ? " †" : ""} | ${r.method} | ${fmt(r.cvNll.map)} / ${r.cvNll.words === null ? "–" : fmt(r.cvNll.words)} | ${r.held} | ${r.before.auc === undefined ? "–" : three((m) => m.auc, r)} | ${three((m) => m.accuracy, r)} | ${three((m) => m.ece, r)} (${fmt(r.after.floor)}) | ${three((m) => m.nll, r)} | ${r.delta.nll === 0 ? "0" : `${r.delta.nll > 0 ? "+" : ""}${fmt(r.delta.nll)} ± ${fmt(r.delta.se)}`} |`;
  const note = rows.some((r) => r.below)
    ? "\n\n† Below calibrations' minimum (a check: 30 labels of each answer; a pick or rate: 50): the API answers 422 `too_few_labels` and applies nothing; the row shows what the fit would do."
    : "";
  return [head, ...rows.map(line)].join("\n") + note;
}
