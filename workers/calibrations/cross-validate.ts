import { applyMap, type CalibrationMap, LOG_FLOOR } from "../../schema/calibration-map";
import { type FitMethod, fitMap, type Labelled } from "./fit";

/** Folds of the cross-validation: item j (in evaluation order) is in fold j mod FOLDS. */
export const FOLDS = 5;
/** A bias per option or level is tried only with at least this many items per option or level. */
export const ITEMS_PER_BIAS = 10;

/** Mean negative log-likelihood of the expected labels (probabilities floored like the map's input). */
export function meanNll(dists: readonly (readonly number[])[], items: readonly Labelled[]): number {
  let s = 0;
  items.forEach((e, n) => {
    const p = dists[n]![e.y]!;
    s -= p > 0 ? Math.max(LOG_FLOOR, Math.log(p)) : LOG_FLOOR;
  });
  return s / Math.max(1, items.length);
}

/** Each item's distribution under a map fitted on the other folds (K-fold, deterministic folds). */
export function crossValidated(
  type: "pick" | "rate" | "check",
  k: number,
  items: readonly Labelled[],
  method: FitMethod,
): number[][] {
  const out: number[][] = new Array(items.length);
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = items.filter((_, j) => j % FOLDS !== fold);
    const map = fitMap(type, k, train, method);
    items.forEach((e, j) => {
      if (j % FOLDS === fold) out[j] = applyMap(map, e.p);
    });
  }
  return out;
}

/** The methods a question's fit chooses among: check always both; pick and rate a bias only with enough items. */
export function candidateMethods(type: "pick" | "rate" | "check", k: number, n: number): FitMethod[] {
  if (type === "check") return ["temperature_bias"];
  return n >= ITEMS_PER_BIAS * k ? ["temperature", "temperature_bias"] : ["temperature"];
}

/** A fitted calibration with its cross-validated evidence. */
export interface ChosenFit {
  method: FitMethod;
  /** Fitted on every item with the chosen method. */
  map: CalibrationMap;
  /** The chosen method's cross-validated distributions, item by item. */
  crossValidated: number[][];
  nllBefore: number;
  nllAfter: number;
  /** Cross-validated NLL of every method tried. */
  tried: Array<{ method: FitMethod; nll: number }>;
}

/** Chooses the method by cross-validated NLL (ties to the simpler), then fits it on all items. */
export function chooseFit(type: "pick" | "rate" | "check", k: number, items: readonly Labelled[]): ChosenFit {
  const tried = candidateMethods(type, k, items.length).map((method) => {
    const cv = crossValidated(type, k, items, method);
    return { method, cv, nll: meanNll(cv, items) };
  });
  const best = tried.reduce((a, b) => (b.nll < a.nll ? b : a));
  return {
    method: best.method,
    map: fitMap(type, k, items, best.method),
    crossValidated: best.cv,
    nllBefore: meanNll(
      items.map((e) => e.p),
      items,
    ),
    nllAfter: best.nll,
    tried: tried.map(({ method, nll }) => ({ method, nll })),
  };
}
