import type { ValidatedDecide } from "../../schema/decide";
import { ApiError } from "../errors";

/** The comparison key of labels and levels: NFC, lower-cased (locale-independent), NFC again. */
export const foldLabel = (s: string): string => s.normalize("NFC").toLowerCase().normalize("NFC");

function firstRepeat(items: readonly string[]): number {
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    const key = foldLabel(item);
    if (seen.has(key)) return i;
    seen.add(key);
  }
  return -1;
}

/**
 * Step 5, second half: labels and levels unique ignoring case, questions in request order.
 * @throws ApiError 422 `duplicate_label` (param `questions.<id>.options.<later label>`) or `invalid_levels`
 * (param `questions.<id>.levels.<later index>`).
 */
export function checkUniqueness(v: ValidatedDecide): void {
  for (const q of v.questions) {
    if (q.type === "pick") {
      const i = firstRepeat(q.options.map((o) => o.label));
      const label = q.options[i]?.label;
      if (label !== undefined)
        throw new ApiError("duplicate_label", {
          param: `questions.${q.id}.options.${label}`,
          message: `Label \`${label}\` equals an earlier label ignoring case.`,
        });
    } else if (q.type === "rate") {
      const i = firstRepeat(q.levels);
      if (i >= 0)
        throw new ApiError("invalid_levels", {
          param: `questions.${q.id}.levels.${i}`,
          message: "`levels` must be unique ignoring case.",
        });
    }
  }
}
