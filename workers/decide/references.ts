import type { ValidatedDecide } from "../../schema/decide";
import { lookupPath, parseTemplate } from "../../schema/render";
import { ApiError } from "../errors";

/** Every text that may hold `{{path}}` references, with the param that names it, in request order. */
export function referenceFields(v: ValidatedDecide): Array<{ param: string; text: string }> {
  const out: Array<{ param: string; text: string }> = [];
  for (const q of v.questions) {
    const base = `questions.${q.id}`;
    out.push({ param: `${base}.instructions`, text: q.instructions });
    if (typeof q.criteria === "string") out.push({ param: `${base}.criteria`, text: q.criteria });
    else if (q.criteria)
      for (const [i, c] of q.criteria.entries()) out.push({ param: `${base}.criteria.${i}`, text: c });
  }
  return out;
}

/**
 * Step 5, first half: every `{{path}}` must name a value of a JSON state.
 * @throws ApiError 422 `state_not_json` (state is a string) or `state_path_not_found`; param is the field
 * holding the reference (`questions.<id>.instructions`, `questions.<id>.criteria[.<i>]`).
 */
export function checkReferences(v: ValidatedDecide): void {
  for (const { param, text } of referenceFields(v)) {
    for (const part of parseTemplate(text)) {
      if (!("path" in part)) continue;
      if (typeof v.state === "string")
        throw new ApiError("state_not_json", {
          param,
          message: `\`${part.raw}\` refers into the state, but the state is a string.`,
        });
      if (lookupPath(v.state, part.path) === undefined)
        throw new ApiError("state_path_not_found", {
          param,
          message: `The state has no field \`${part.path.join(".")}\`.`,
        });
    }
  }
}
