import { FRAMINGS, type Framing } from "../src/framings";
import type { EvalItem } from "./dataset/item";

/** A framing and the question types it is evaluated on (check-only variants differ from plain-qa only on check). */
export interface Variant {
  framing: Framing;
  types: EvalItem["type"][];
}

const ALL: EvalItem["type"][] = ["pick", "rate", "check"];

/** Evaluation order: the baseline and the cheapest informative variants first, so a cut-short run still compares. */
export const VARIANTS: Variant[] = [
  ["plain-qa", ALL],
  ["code-letters", ALL],
  ["plain-answer-is", ALL],
  ["chatml-qa", ALL],
  ["chatml-answer-is", ALL],
  ["plain-qa-listed", ALL],
  ["plain-true-false", ["check"]],
  ["plain-correct-incorrect", ["check"]],
  ["plain-qa-yes-no-cap", ["check"]],
  ["chatml-yes-no-cap", ["check"]],
].map(([id, types]) => ({ framing: FRAMINGS[id as string] as Framing, types: types as EvalItem["type"][] }));
