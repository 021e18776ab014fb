import { decisionJson } from "../decide/decision";
import type { ItemRow } from "../stores/evaluation-items";
import type { EvaluationRow } from "../stores/evaluations";

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** The Evaluation object (schema/evaluations.ts). */
export function evaluationJson(e: EvaluationRow) {
  return {
    id: e.id,
    object: "evaluation" as const,
    name: e.name,
    model: e.model,
    status: e.status,
    progress: { done: e.done, total: e.total },
    usage: { input_tokens: e.inputTokens },
    created: seconds(e.createdAt)!,
    started: seconds(e.startedAt),
    finished: seconds(e.finishedAt),
    resumes_at: e.status === "paused" ? seconds(e.resumesAt) : null,
    expires_at: seconds(e.expiresAt)!,
    failure: e.failureCode ? { code: e.failureCode, message: e.failureMessage ?? "" } : null,
    metrics: e.status === "done" ? (e.metrics ?? {}) : null,
  };
}

/** An item as JSON text: its state, questions and expected labels as sent, and the Decision it got (or null). */
export function itemJson(item: ItemRow): string {
  let decision = "null";
  if (item.answers && item.attempt) {
    const stored = JSON.parse(item.answers) as {
      model: string;
      answers: Parameters<typeof decisionJson>[0]["answers"];
    };
    decision = decisionJson({
      id: item.attempt,
      created: Math.floor((item.scoredAt ?? 0) / 1000),
      model: stored.model,
      served_by: "gpu",
      calibration: item.calibration ?? "",
      answers: stored.answers,
      usage: {
        input_tokens: item.inputTokens,
        state_tokens: item.stateTokens,
        question_tokens: item.questionTokens,
        charge_micro_cents: 0,
        unit_price_micro_cents: 0,
        tier: "test",
      },
    });
  }
  const request = item.request.slice(1, -1);
  return `{"object":"evaluation_item","index":${item.idx},${request},"expected":${item.expected},"decision":${decision}}`;
}

/** A page of items as the list's JSON text. */
export function itemListJson(items: readonly ItemRow[], hasMore: boolean): string {
  return `{"object":"list","data":[${items.map(itemJson).join(",")}],"has_more":${hasMore}}`;
}
