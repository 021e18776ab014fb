import type { ModelLimits } from "../../schema/models";

/**
 * Tokens the worker's prompt adds to a request's billable tokens in one sequence at most: the framing around
 * the state and one question, and the scored label's continuation. Measured on the real tokenizer for every
 * served framing with adversarial requests (`test/integration/gpu-worker/context-size.test.ts`, which fails
 * when a framing outgrows it).
 */
export const SCAFFOLDING_MAX_TOKENS = 256;

/**
 * The context one sequence needs so that every request the catalogue allows fits: the billable maximum plus
 * the scaffolding, rounded up to a multiple of 256 (llama.cpp pads the KV cache to that).
 */
export function contextSizeFor(limits: Pick<ModelLimits, "max_total_tokens">): number {
  return Math.ceil((limits.max_total_tokens + SCAFFOLDING_MAX_TOKENS) / 256) * 256;
}
