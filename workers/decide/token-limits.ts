import type { TokenCounts, ValidatedDecide } from "../../schema/decide";
import { MAX_ALL_QUESTIONS_TOKENS, type ModelLimits } from "../../schema/models";
import { renderQuestion, renderState } from "../../schema/render";
import { countTokens } from "../../schema/tokenizer";
import { ApiError } from "../errors";

/** Token counter of the model family's pinned tokenizer (special tokens off). */
export type CountTokens = (text: string) => number;

/**
 * Step 6: render, count and enforce the token limits, in this order (first failure wins):
 * 1. rendered state over `max_state_tokens` → 413 `state_too_long` (param `state`);
 * 2. a rendered question over `max_question_tokens` → 413 `question_too_long` (param `questions.<id>`, first in order);
 * 3. all questions together over 4,096 → 413 `request_too_long` (param `questions`);
 * 4. state plus questions over `max_total_tokens` → 413 `request_too_long` (no param).
 */
export function checkTokenLimits(
  v: ValidatedDecide,
  limits: ModelLimits,
  count: CountTokens = countTokens,
): TokenCounts {
  const state_tokens = count(renderState(v.state));
  if (state_tokens > limits.max_state_tokens)
    throw new ApiError("state_too_long", {
      param: "state",
      message: `The rendered state is ${state_tokens} tokens; at most ${limits.max_state_tokens}.`,
    });
  let question_tokens = 0;
  for (const q of v.questions) {
    const n = count(renderQuestion(q, v.state));
    if (n > limits.max_question_tokens)
      throw new ApiError("question_too_long", {
        param: `questions.${q.id}`,
        message: `The rendered question is ${n} tokens; at most ${limits.max_question_tokens}.`,
      });
    question_tokens += n;
  }
  if (question_tokens > MAX_ALL_QUESTIONS_TOKENS)
    throw new ApiError("request_too_long", {
      param: "questions",
      message: `All questions together are ${question_tokens} tokens; at most ${MAX_ALL_QUESTIONS_TOKENS}.`,
    });
  const input_tokens = state_tokens + question_tokens;
  if (input_tokens > limits.max_total_tokens)
    throw new ApiError("request_too_long", {
      message: `The request is ${input_tokens} billable tokens; at most ${limits.max_total_tokens}.`,
    });
  return { state_tokens, question_tokens, input_tokens };
}
