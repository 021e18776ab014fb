import { applyMap, type CalibrationMap, LOG_FLOOR } from "../../schema/calibration-map";
import { fitWordsModel } from "../../schema/learned/fit";
import type { WordsModel } from "../../schema/learned/model";
import { type FitMethod, fitMap, type Labelled } from "./fit";
import { crossValidatedWords, withWords } from "./state-words";

/**
 * How a calibration answers: a map on the version's answer (`FitMethod`), or `state_words`, a linear model over
 * the state's words stacked with the version's answer (schema/learned/, issue 49).
 */
export type CalibrationMethod = FitMethod | "state_words";

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

/** Each item's NLL of its expected label (floored like `meanNll`). */
export function itemNll(dists: readonly (readonly number[])[], items: readonly Labelled[]): number[] {
  return items.map((e, n) => {
    const p = dists[n]![e.y]!;
    return p > 0 ? -Math.max(LOG_FLOOR, Math.log(p)) : -LOG_FLOOR;
  });
}

/**
 * Whether `a` beats `b` by more than one standard error of the paired per-item NLL difference. The state-reading
 * model must: it has many weights and its L2 weight is chosen on the same folds, so a bare win there is partly
 * luck (measured: docs/quality.md, issue 49).
 */
export function clearlyBetter(
  a: readonly (readonly number[])[],
  b: readonly (readonly number[])[],
  items: readonly Labelled[],
): boolean {
  const na = itemNll(a, items);
  const nb = itemNll(b, items);
  const n = items.length;
  if (n < 2) return false;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += (nb[i] as number) - (na[i] as number);
  mean /= n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += ((nb[i] as number) - (na[i] as number) - mean) ** 2;
  return mean > Math.sqrt(sq / (n - 1) / n);
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

/** One method tried: its cross-validated NLL and answers (state_words: at its chosen L2 weight). */
export interface TriedMethod {
  method: CalibrationMethod;
  nll: number;
  crossValidated: number[][];
  /** state_words: the L2 weight chosen by the same folds. */
  l2?: number;
}

/** A fitted calibration with its cross-validated evidence. */
export interface ChosenFit {
  method: CalibrationMethod;
  /**
   * Fitted on every item with the chosen method; for `state_words`, the stack's own part (temperature
   * 1/scale and its bias), shown, while `model` is what answers.
   */
  map: CalibrationMap;
  /** `state_words`: the model fitted on every item at the chosen L2 weight. */
  model?: WordsModel;
  /** The chosen method's cross-validated distributions, item by item. */
  crossValidated: number[][];
  nllBefore: number;
  nllAfter: number;
  /** Every method tried, in order (maps first, then state_words when the items carry their words). */
  tried: TriedMethod[];
}

/**
 * Chooses the method by cross-validated NLL (ties to the simpler), then fits it on all items. The state-reading
 * model is a candidate only when asked (`readState`: the caller stores and applies its `model`) and every item
 * carries its state's words, and wins only when `clearlyBetter` than the better of the best map and the version's
 * own answers.
 */
export function chooseFit(
  type: "pick" | "rate" | "check",
  k: number,
  items: readonly Labelled[],
  options: { readState?: boolean } = {},
): ChosenFit {
  const tried: TriedMethod[] = candidateMethods(type, k, items.length).map((method) => {
    const cv = crossValidated(type, k, items, method);
    return { method, crossValidated: cv, nll: meanNll(cv, items) };
  });
  const words = options.readState ? withWords(items) : null;
  if (words) {
    const cv = crossValidatedWords(type, k, words, FOLDS, meanNll);
    tried.push({ method: "state_words", crossValidated: cv.crossValidated, nll: cv.nll, l2: cv.l2 });
  }
  const nllBefore = meanNll(
    items.map((e) => e.p),
    items,
  );
  const maps = tried.filter((t) => t.method !== "state_words");
  let best = maps.reduce((a, b) => (b.nll < a.nll ? b : a));
  const stateWords = tried.find((t) => t.method === "state_words");
  if (stateWords) {
    const base = best.nll < nllBefore ? best.crossValidated : items.map((e) => [...e.p]);
    if (clearlyBetter(stateWords.crossValidated, base, items)) best = stateWords;
  }
  const common = { crossValidated: best.crossValidated, nllBefore, nllAfter: best.nll, tried };
  if (best.method === "state_words" && words) {
    const model = fitWordsModel(type, k, words, best.l2 as number);
    return {
      ...common,
      method: "state_words",
      map: { temperature: 1 / model.scale, bias: model.bias },
      model,
    };
  }
  const method = best.method as FitMethod;
  return { ...common, method, map: fitMap(type, k, items, method) };
}
