import type { Evaluation } from "./evaluation-types.js";
import { OPERATIONS, type Operation, type OperationName } from "./operations.js";
import type {
  CreateReviewRuleRequest,
  DeletedReviewRule,
  Review,
  ReviewClaim,
  ReviewLabel,
  ReviewList,
  ReviewListQuery,
  ReviewRule,
  ReviewRuleList,
  ReviewRuleListQuery,
} from "./review-types.js";
import type { Call, RequestOptions, Transport } from "./transport.js";

/**
 * The review routes (issue 51), as `client.reviews`: rules that keep the decides svc was unsure of, the queue of
 * kept items, labels, and the loop into an evaluation and a calibration. Every method takes `RequestOptions`.
 */
export class Reviews {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/review-rules: keep the decides of one question that `when` selects (sent once: no idempotency key). */
  async createRule(request: CreateReviewRuleRequest, options?: RequestOptions): Promise<ReviewRule> {
    return this.send<ReviewRule>({ ...this.call("createReviewRule"), body: request }, options);
  }

  /** GET /v1/review-rules: the rules of the key's mode, newest first. */
  async listRules(query: ReviewRuleListQuery = {}, options?: RequestOptions): Promise<ReviewRuleList> {
    const q = { limit: query.limit?.toString(), starting_after: query.starting_after };
    return this.send<ReviewRuleList>({ ...this.call("listReviewRules"), query: q }, options);
  }

  /** GET /v1/review-rules/{id}: a rule with its counts and its loop. */
  async retrieveRule(id: string, options?: RequestOptions): Promise<ReviewRule> {
    return this.send<ReviewRule>(this.call("getReviewRule", id), options);
  }

  /** DELETE /v1/review-rules/{id}: the rule and every item it kept. */
  async deleteRule(id: string, options?: RequestOptions): Promise<DeletedReviewRule> {
    return this.send<DeletedReviewRule>(this.call("deleteReviewRule", id), options);
  }

  /** POST /v1/review-rules/{id}/next: the rule's next unclaimed item, claimed for this key for 120 s. */
  async next(ruleId: string, options?: RequestOptions): Promise<ReviewClaim> {
    return this.send<ReviewClaim>(this.call("claimNextReview", ruleId), options);
  }

  /**
   * POST /v1/review-rules/{id}/evaluations: an evaluation of the rule's labelled items on the current version; a
   * calibration is fitted once it is done (`retrieveRule(id).loop`). 422 `too_few_labels` under calibrations' minimum.
   */
  async evaluate(ruleId: string, options?: RequestOptions): Promise<Evaluation> {
    return this.send<Evaluation>(this.call("createReviewRuleEvaluation", ruleId), options);
  }

  /** GET /v1/reviews: kept items newest first, by rule, question and status. */
  async list(query: ReviewListQuery = {}, options?: RequestOptions): Promise<ReviewList> {
    const q = { ...query, limit: query.limit?.toString() };
    return this.send<ReviewList>({ ...this.call("listReviews"), query: q }, options);
  }

  /** POST /v1/reviews/{id}/label: 409 `review_already_reviewed` when another reviewer was first. */
  async label(id: string, label: ReviewLabel, options?: RequestOptions): Promise<Review> {
    return this.send<Review>({ ...this.call("labelReview", id), body: { label } }, options);
  }

  /** POST /v1/reviews/{id}/skip. */
  async skip(id: string, options?: RequestOptions): Promise<Review> {
    return this.send<Review>(this.call("skipReview", id), options);
  }

  private async send<T>(call: Call, options?: RequestOptions): Promise<T> {
    return (await this.transport.send<T>(call, options)).data;
  }

  private call(name: OperationName, id?: string): Call {
    const { method, path, auth, idempotent }: Operation = OPERATIONS[name];
    const resolved = id === undefined ? path : path.replace("{id}", encodeURIComponent(id));
    return { method, path: resolved, auth, idempotent };
  }
}
