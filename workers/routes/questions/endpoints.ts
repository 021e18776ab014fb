import type { Context } from "hono";
import {
  QUESTION_RESOURCE_ID_PATTERN,
  Question,
  QuestionDrift,
  QuestionList,
  QuestionListQuery,
  QuestionPathParams,
  QuestionSeries,
  QuestionSeriesQuery,
  UpdateDriftWire,
} from "../../../schema/questions";
import { kickRunner } from "../../clients/runner";
import type { AppEnv } from "../../context/app-env";
import { ApiError } from "../../errors";
import { type FieldRule, readConsoleBody } from "../../http/console-body";
import { pageQuery } from "../../http/list-query";
import { pathId } from "../../http/path-id";
import { testClock } from "../../http/test-clock";
import type { DriftDeps } from "../../questions/drift";
import { questionJson, questionListJson } from "../../questions/json";
import {
  changeQuestionDrift,
  type DriftChange,
  getQuestion,
  listAccountQuestions,
  questionDrift,
  questionSeries,
} from "../../questions/service";
import { parseUsageRangeParams } from "../../reports/params";
import { apiAndConsole, apisThenConsoles, type Endpoint } from "../define";
import { jsonResponse, jsonText } from "../responses";
import { DRIFT_CHANGE_ERRORS, QUESTION_CALLERS, SERIES_ERRORS } from "./owners";

const depsOf = (c: Context<AppEnv>): DriftDeps => ({
  db: c.var.db,
  kick: (accountId) => kickRunner(c.env, accountId),
});

/** Now, or a test stack's simulated time (http/test-clock.ts). */
const nowOf = (c: Context<AppEnv>) => testClock(c) ?? Date.now();

const thresholdRule: FieldRule = {
  required: false,
  check: (v) =>
    typeof v !== "number"
      ? { code: "invalid_type", message: "Expected a number." }
      : v > 0 && v <= 1
        ? null
        : { code: "invalid_value", message: "Must be a number above 0, at most 1." },
};
const resetRule: FieldRule = {
  required: false,
  check: (v) =>
    typeof v !== "boolean"
      ? { code: "invalid_type", message: "Expected true." }
      : v
        ? null
        : { code: "invalid_value", message: "Only `true` resets the reference." },
};

/** The body of a drift change: `threshold` and/or `reset_reference: true`; neither is 422 `missing_field`. */
async function readDriftChange(c: Context<AppEnv>): Promise<DriftChange> {
  const { fields } = await readConsoleBody(c, { threshold: thresholdRule, reset_reference: resetRule });
  if (fields.threshold === undefined && fields.reset_reference === undefined)
    throw new ApiError("missing_field", {
      param: "threshold",
      message: "Send `threshold`, `reset_reference: true`, or both.",
    });
  return {
    threshold: (fields.threshold as number | undefined) ?? null,
    resetReference: fields.reset_reference === true,
  };
}

/** Questions (issue 52): any key of the account with `decide`, its own mode's; then their console twins. */
export const QUESTION_ENDPOINTS: readonly Endpoint[] = apisThenConsoles([
  apiAndConsole(
    {
      method: "get",
      path: "/v1/questions",
      operationId: "listQuestions",
      summary: "List the account's questions as written, with when they were asked and by which versions",
      request: { query: QuestionListQuery },
      responses: { 200: jsonResponse("A page of questions, by id.", QuestionList) },
      errors: ["unknown_field", "invalid_value"],
    },
    QUESTION_CALLERS,
    async function listQuestionsHandler(c, owner) {
      const query = pageQuery(c, QUESTION_RESOURCE_ID_PATTERN, "a question id");
      const page = await listAccountQuestions(depsOf(c), owner, query, nowOf(c));
      return jsonText(c, questionListJson(page.data, page.hasMore), 200);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/questions/{id}",
      operationId: "getQuestion",
      summary: "Get one question",
      request: { params: QuestionPathParams },
      responses: { 200: jsonResponse("The question.", Question) },
      errors: ["question_not_found"],
    },
    QUESTION_CALLERS,
    async function getQuestionHandler(c, owner) {
      return jsonText(c, questionJson(await getQuestion(depsOf(c), owner, pathId(c), nowOf(c))), 200);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/questions/{id}/series",
      operationId: "getQuestionSeries",
      summary: "One question's answers over time, by UTC day (up to 93 days) or hour (up to 7 days)",
      description:
        "Query: `start`, `end` (YYYY-MM-DD, end not included), `granularity` (`day` default, or `hour`), with the usage report's 422s. Per bucket: answer count, the answer mix, a check's mean P(yes) and ten-bin histogram, mean confidence, abstain rate, answers per version.",
      request: { params: QuestionPathParams, query: QuestionSeriesQuery },
      responses: {
        200: jsonResponse("Every bucket of the range (empty ones with count 0).", QuestionSeries),
      },
      errors: SERIES_ERRORS,
    },
    QUESTION_CALLERS,
    async function getQuestionSeriesHandler(c, owner) {
      const range = parseUsageRangeParams(new URL(c.req.url).searchParams);
      return c.json(await questionSeries(depsOf(c), owner, pathId(c), range), 200);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/questions/{id}/drift",
      operationId: "getQuestionDrift",
      summary: "The question's drift: the last 7 days against its reference week, within one version",
      request: { params: QuestionPathParams },
      responses: {
        200: jsonResponse("The drift of the version with most answers this week.", QuestionDrift),
      },
      errors: ["question_not_found"],
    },
    QUESTION_CALLERS,
    async function getQuestionDriftHandler(c, owner) {
      return c.json(await questionDrift(depsOf(c), owner, pathId(c), nowOf(c)), 200);
    },
  ),
  apiAndConsole(
    {
      method: "post",
      path: "/v1/questions/{id}/drift",
      operationId: "updateQuestionDrift",
      summary: "Set the question's drift threshold, or restart its reference week from now",
      request: {
        params: QuestionPathParams,
        body: { required: true, content: { "application/json": { schema: UpdateDriftWire } } },
      },
      responses: { 200: jsonResponse("The drift with the change applied.", QuestionDrift) },
      errors: DRIFT_CHANGE_ERRORS,
    },
    QUESTION_CALLERS,
    async function updateQuestionDriftHandler(c, owner) {
      const change = await readDriftChange(c);
      return c.json(await changeQuestionDrift(depsOf(c), owner, pathId(c), change, nowOf(c)), 200);
    },
  ),
]);
