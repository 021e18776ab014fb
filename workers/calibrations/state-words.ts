import type { WordCounts } from "../../schema/learned/features";
import {
  fitWordsModel,
  solveWords,
  toWordsModel,
  type WordsExample,
  wordsProblem,
} from "../../schema/learned/fit";
import {
  applyWordsModel,
  MAX_MODEL_BYTES,
  type WordsModel,
  wordsModelJson,
} from "../../schema/learned/model";
import type { Labelled } from "./fit";

/**
 * L2 weights the state-reading fit tries, strongest first (each fold's fit starts from the previous weight's
 * solution). The sum-of-NLL scale: 0.1 is scikit-learn's C = 10.
 */
export const L2_GRID = [3, 1, 0.3, 0.1, 0.03] as const;

/** The items as the words fit reads them (every item must carry its state's words). */
export function withWords(items: readonly Labelled[]): WordsExample[] | null {
  if (items.length === 0 || !items.every((e) => e.words)) return null;
  return items.map((e) => ({ p: e.p, y: e.y, words: e.words as WordCounts }));
}

/** The state-reading candidate's cross-validated result: the chosen L2 weight and its held-out answers. */
export interface WordsCrossValidated {
  l2: number;
  crossValidated: number[][];
  nll: number;
  /** Cross-validated NLL at every weight tried, in L2_GRID order. */
  grid: Array<{ l2: number; nll: number }>;
}

/**
 * K-fold cross-validation of the state-reading fit over L2_GRID (the folds of `crossValidated`: item j in fold
 * j mod `folds`); the weight with the lowest cross-validated NLL wins (ties: the stronger).
 */
export function crossValidatedWords(
  type: "pick" | "rate" | "check",
  k: number,
  items: readonly WordsExample[],
  folds: number,
  meanNll: (dists: readonly (readonly number[])[], items: readonly Labelled[]) => number,
): WordsCrossValidated {
  const out = L2_GRID.map(() => new Array<number[]>(items.length));
  for (let fold = 0; fold < folds; fold++) {
    const train = items.filter((_, j) => j % folds !== fold);
    const pr = wordsProblem(type, k, train);
    let x: Float64Array | undefined;
    L2_GRID.forEach((l2, g) => {
      x = solveWords(pr, l2, x);
      let model: WordsModel = toWordsModel(pr, x, l2);
      if (wordsModelJson(model).length > MAX_MODEL_BYTES) model = fitWordsModel(type, k, train, l2);
      items.forEach((e, j) => {
        if (j % folds === fold) (out[g] as number[][])[j] = applyWordsModel(model, e.p, e.words);
      });
    });
  }
  const grid = L2_GRID.map((l2, g) => ({ l2, nll: meanNll(out[g] as number[][], items) }));
  let best = 0;
  grid.forEach((r, g) => {
    if (r.nll < (grid[best] as { nll: number }).nll) best = g;
  });
  return {
    l2: L2_GRID[best] as number,
    crossValidated: out[best] as number[][],
    nll: (grid[best] as { nll: number }).nll,
    grid,
  };
}
