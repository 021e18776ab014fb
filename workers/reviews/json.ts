import { MAX_KEPT_PER_RULE } from "../../schema/review-limits";
import type { ReviewRuleRow } from "../stores/review-rules";
import type { ReviewRow } from "../stores/reviews";

const seconds = (ms: number | null) => (ms === null ? "null" : String(Math.floor(ms / 1000)));
const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));

/** The ReviewRule object's JSON text (schema/reviews.ts): the question spliced in as written. */
export function reviewRuleJson(r: ReviewRuleRow): string {
  const counts = r.counts ?? { pending: 0, labelled: 0, skipped: 0 };
  const when = `{"abstained":${r.abstained},"below_confidence":${r.belowConfidence ?? "null"},"sample_rate":${r.sampleRate}}`;
  const loop = `{"status":${str(r.loopStatus)},"evaluation":${str(r.loopEvaluation)},"calibration":${str(r.loopCalibration)},"error":${r.loopError ?? "null"}}`;
  return `{${[
    `"id":${str(r.id)}`,
    `"object":"review_rule"`,
    `"question":${r.question}`,
    `"model":${str(r.model)}`,
    `"when":${when}`,
    `"auto_apply":${r.autoApply}`,
    `"mode":${str(r.mode)}`,
    `"counts":{"pending":${counts.pending},"labelled":${counts.labelled},"skipped":${counts.skipped},"kept":${r.kept}}`,
    `"full":${r.kept >= MAX_KEPT_PER_RULE}`,
    `"loop":${loop}`,
    `"created":${seconds(r.createdAt)}`,
  ].join(",")}}`;
}

/** The Review object's JSON text: the state, question and answer spliced in as the decide had them. */
export function reviewJson(r: ReviewRow): string {
  return `{${[
    `"id":${str(r.id)}`,
    `"object":"review"`,
    `"rule":${str(r.ruleId)}`,
    `"request_id":${str(r.requestId)}`,
    `"model":${str(r.model)}`,
    `"question_id":${str(r.questionId)}`,
    `"state":${r.state}`,
    `"question":${r.question}`,
    `"answer":${r.answer}`,
    `"status":${str(r.status)}`,
    `"label":${r.label ?? "null"}`,
    `"created":${seconds(r.createdAt)}`,
    `"reviewed":${seconds(r.reviewedAt)}`,
    `"expires_at":${seconds(r.expiresAt)}`,
  ].join(",")}}`;
}

/** A page as the list's JSON text. */
export function listJson<T>(rows: readonly T[], hasMore: boolean, one: (row: T) => string): string {
  return `{"object":"list","data":[${rows.map(one).join(",")}],"has_more":${hasMore}}`;
}
