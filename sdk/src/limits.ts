import type { DecideRequest } from "./decide-types.js";
import { SvcError } from "./errors.js";
import type { Model, ModelLimits } from "./resource-types.js";

const LIMIT_FIELDS = [
  "max_state_tokens",
  "max_question_tokens",
  "max_total_tokens",
  "max_questions",
  "max_options",
  "max_levels",
  "exact_option_probabilities",
] as const satisfies ReadonlyArray<keyof ModelLimits>;

/**
 * The limits a request naming `model` must keep, from GET /v1/models: an exact version's own, or for an
 * alias the strictest of the active versions it may be answered by (the GPU version and its fallback).
 * Undefined when no active model has that name.
 */
export function limitsFor(models: readonly Model[], model: string): ModelLimits | undefined {
  const matching = models.filter((m) => m.status === "active" && (m.id === model || m.alias === model));
  if (matching.length === 0) return undefined;
  const out = {} as ModelLimits;
  for (const f of LIMIT_FIELDS) out[f] = Math.min(...matching.map((m) => m[f]));
  return out;
}

/**
 * The count limits a request breaks (questions, options per pick, levels per rate), as the errors the API
 * would answer; token limits need the tokenizer and stay the API's. Empty when none.
 */
export function limitErrors(request: DecideRequest, limits: ModelLimits): SvcError[] {
  const local = (code: string, param: string, message: string) =>
    new SvcError({
      type: "validation",
      code,
      param,
      status: 422,
      message: `${message} (checked by the SDK against GET /v1/models)`,
    });
  const out: SvcError[] = [];
  const ids = Object.keys(request.questions);
  if (ids.length > limits.max_questions)
    out.push(local("too_many_questions", "questions", `More than ${limits.max_questions} questions.`));
  for (const id of ids) {
    const q = request.questions[id];
    if (q?.type === "pick" && Object.keys(q.options).length > limits.max_options)
      out.push(
        local("too_many_options", `questions.${id}.options`, `More than ${limits.max_options} options.`),
      );
    if (q?.type === "rate" && q.levels.length > limits.max_levels)
      out.push(local("invalid_levels", `questions.${id}.levels`, `More than ${limits.max_levels} levels.`));
  }
  return out;
}
