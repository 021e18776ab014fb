import {
  CreateReviewRuleWire,
  DeletedReviewRule,
  LabelReviewWire,
  NextReview,
  REVIEW_RULE_ID_PATTERN,
  Review,
  ReviewList,
  ReviewListQuery,
  ReviewPathParams,
  ReviewRule,
  ReviewRuleEvaluation,
  ReviewRuleList,
  ReviewRuleListQuery,
  ReviewRulePathParams,
} from "../../../schema/reviews";
import { evaluationJson } from "../../evaluations/json";
import { anyRule, readConsoleBody } from "../../http/console-body";
import { pageQuery } from "../../http/list-query";
import { pathId } from "../../http/path-id";
import { listJson, reviewJson, reviewRuleJson } from "../../reviews/json";
import { startReviewLoop } from "../../reviews/loop";
import { listQueue, nextReview, reviewOne, reviewQuery } from "../../reviews/queue";
import {
  createReviewRule,
  deleteRule,
  getRule,
  listRules,
  REVIEW_RULE_FIELDS,
  reviewRuleInput,
} from "../../reviews/rules";
import { apiAndConsole, apisThenConsoles, type Endpoint } from "../define";
import { jsonResponse, jsonText } from "../responses";
import {
  CREATE_RULE_ERRORS,
  LABEL_ERRORS,
  LIST_ERRORS,
  LOOP_ERRORS,
  REVIEW_CALLERS,
  reviewDeps,
} from "./owners";

const ruleById = { params: ReviewRulePathParams };
const reviewById = { params: ReviewPathParams };

/** Review rules and their queue (issue 51): the API-key operations, then their console twins. */
export const REVIEW_ENDPOINTS: readonly Endpoint[] = apisThenConsoles([
  apiAndConsole(
    {
      method: "post",
      path: "/v1/review-rules",
      operationId: "createReviewRule",
      summary: "Keep the decides of one question that svc was unsure of for a person to label",
      request: {
        body: { required: true, content: { "application/json": { schema: CreateReviewRuleWire } } },
      },
      responses: { 201: jsonResponse("The rule.", ReviewRule) },
      errors: CREATE_RULE_ERRORS,
    },
    REVIEW_CALLERS,
    async function createReviewRuleHandler(c, owner) {
      const { fields } = await readConsoleBody(c, REVIEW_RULE_FIELDS);
      const row = await createReviewRule(reviewDeps(c), owner, reviewRuleInput(fields));
      return jsonText(c, reviewRuleJson(row), 201);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/review-rules",
      operationId: "listReviewRules",
      summary: "List the account's review rules, newest first",
      request: { query: ReviewRuleListQuery },
      responses: { 200: jsonResponse("A page of review rules.", ReviewRuleList) },
      errors: LIST_ERRORS,
    },
    REVIEW_CALLERS,
    async function listReviewRulesHandler(c, owner) {
      const page = await listRules(
        reviewDeps(c),
        owner,
        pageQuery(c, REVIEW_RULE_ID_PATTERN, "a review rule id"),
      );
      return jsonText(c, listJson(page.data, page.hasMore, reviewRuleJson), 200);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/review-rules/{id}",
      operationId: "getReviewRule",
      summary: "Get a review rule: its counts and its loop",
      request: ruleById,
      responses: { 200: jsonResponse("The rule.", ReviewRule) },
      errors: ["review_rule_not_found"],
    },
    REVIEW_CALLERS,
    async function getReviewRuleHandler(c, owner) {
      return jsonText(c, reviewRuleJson(await getRule(reviewDeps(c), owner, pathId(c))), 200);
    },
  ),
  apiAndConsole(
    {
      method: "delete",
      path: "/v1/review-rules/{id}",
      operationId: "deleteReviewRule",
      summary: "Delete a review rule and every item it kept",
      request: ruleById,
      responses: { 200: jsonResponse("The deleted rule's id.", DeletedReviewRule) },
      errors: ["review_rule_not_found"],
    },
    REVIEW_CALLERS,
    async function deleteReviewRuleHandler(c, owner) {
      const id = await deleteRule(reviewDeps(c), owner, pathId(c));
      return jsonText(c, JSON.stringify({ id, object: "review_rule", deleted: true }), 200);
    },
  ),
  apiAndConsole(
    {
      method: "post",
      path: "/v1/review-rules/{id}/next",
      operationId: "claimNextReview",
      summary: "Take the rule's next unclaimed pending item, claimed for 120 s",
      request: ruleById,
      responses: { 200: jsonResponse("The claimed item, or `review: null` when none is left.", NextReview) },
      errors: ["review_rule_not_found"],
    },
    REVIEW_CALLERS,
    async function claimNextReviewHandler(c, owner) {
      const row = await nextReview(reviewDeps(c), owner, pathId(c));
      const until = row?.claimedUntil ? String(Math.floor(row.claimedUntil / 1000)) : "null";
      const text = `{"object":"review_claim","review":${row ? reviewJson(row) : "null"},"claimed_until":${until}}`;
      return jsonText(c, text, 200);
    },
  ),
  apiAndConsole(
    {
      method: "post",
      path: "/v1/review-rules/{id}/evaluations",
      operationId: "createReviewRuleEvaluation",
      summary:
        "Evaluate the current version on the rule's labelled items; a calibration is fitted when it is done",
      request: ruleById,
      responses: { 201: jsonResponse("The evaluation, `queued`.", ReviewRuleEvaluation) },
      errors: LOOP_ERRORS,
    },
    REVIEW_CALLERS,
    async function createReviewRuleEvaluationHandler(c, owner) {
      const row = await startReviewLoop(reviewDeps(c), owner, pathId(c));
      return c.json(evaluationJson(row), 201);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/reviews",
      operationId: "listReviews",
      summary: "List kept items, newest first, by rule, question and status",
      request: { query: ReviewListQuery },
      responses: { 200: jsonResponse("A page of reviews.", ReviewList) },
      errors: [...LIST_ERRORS, "review_rule_not_found"],
    },
    REVIEW_CALLERS,
    async function listReviewsHandler(c, owner) {
      const page = await listQueue(reviewDeps(c), owner, reviewQuery(c));
      return jsonText(c, listJson(page.data, page.hasMore, reviewJson), 200);
    },
  ),
  apiAndConsole(
    {
      method: "post",
      path: "/v1/reviews/{id}/label",
      operationId: "labelReview",
      summary: "Label a pending item (409 when it was already labelled or skipped)",
      request: {
        ...reviewById,
        body: { required: true, content: { "application/json": { schema: LabelReviewWire } } },
      },
      responses: { 200: jsonResponse("The review, `labelled`.", Review) },
      errors: LABEL_ERRORS,
    },
    REVIEW_CALLERS,
    async function labelReviewHandler(c, owner) {
      const { fields } = await readConsoleBody(c, { label: anyRule(true) });
      return jsonText(
        c,
        reviewJson(await reviewOne(reviewDeps(c), owner, pathId(c), { value: fields.label })),
        200,
      );
    },
  ),
  apiAndConsole(
    {
      method: "post",
      path: "/v1/reviews/{id}/skip",
      operationId: "skipReview",
      summary: "Skip a pending item (409 when it was already labelled or skipped)",
      request: reviewById,
      responses: { 200: jsonResponse("The review, `skipped`.", Review) },
      errors: ["review_not_found", "review_already_reviewed"],
    },
    REVIEW_CALLERS,
    async function skipReviewHandler(c, owner) {
      return jsonText(c, reviewJson(await reviewOne(reviewDeps(c), owner, pathId(c), null)), 200);
    },
  ),
]);
