import {
  CreateEvaluationWire,
  DeletedEvaluation,
  EVALUATION_ID_PATTERN,
  Evaluation,
  EvaluationItemList,
  EvaluationItemsQuery,
  EvaluationList,
  EvaluationListQuery,
  EvaluationPathParams,
} from "../../../schema/evaluations";
import { evaluationJson, itemListJson } from "../../evaluations/json";
import {
  cancelEvaluation,
  createEvaluation,
  deleteEvaluation,
  getEvaluation,
  listEvaluationItems,
  listEvaluations,
} from "../../evaluations/service";
import { validateEvaluationBody } from "../../evaluations/validate";
import { readBodyLimited } from "../../http/body";
import { checkContentType } from "../../http/content-type";
import { intParam, pageQuery, queryOf } from "../../http/list-query";
import { parseJsonBody } from "../../http/parse-json";
import { pathId } from "../../http/path-id";
import { apiAndConsole, apisThenConsoles, type Endpoint } from "../define";
import { jsonResponse, jsonText } from "../responses";
import { CREATE_ERRORS, EVALUATION_CALLERS, evaluationDeps, LIST_ERRORS } from "./owners";

const byId = { params: EvaluationPathParams };

/** Evaluations (issue 31): the API-key operations (test keys only), then their console twins. */
export const EVALUATION_ENDPOINTS: readonly Endpoint[] = apisThenConsoles([
  apiAndConsole(
    {
      method: "post",
      path: "/v1/evaluations",
      operationId: "createEvaluation",
      summary: "Create an evaluation: score labelled items in the background (test keys only)",
      request: {
        body: { required: true, content: { "application/json": { schema: CreateEvaluationWire } } },
      },
      responses: { 201: jsonResponse("The evaluation, `queued`.", Evaluation) },
      errors: CREATE_ERRORS,
    },
    EVALUATION_CALLERS,
    // Size (413), content type (400), strict JSON (400), then the body by precedence (422 / 404 / 413).
    async function createEvaluationHandler(c, owner) {
      const bytes = await readBodyLimited(c.req.raw);
      checkContentType(c.req.header("content-type"), bytes.byteLength);
      const body = validateEvaluationBody(parseJsonBody(bytes));
      return c.json(evaluationJson(await createEvaluation(evaluationDeps(c), owner, body)), 201);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/evaluations",
      operationId: "listEvaluations",
      summary: "List the account's evaluations, newest first",
      request: { query: EvaluationListQuery },
      responses: { 200: jsonResponse("A page of evaluations.", EvaluationList) },
      errors: LIST_ERRORS,
    },
    EVALUATION_CALLERS,
    async function listEvaluationsHandler(c, owner) {
      const query = pageQuery(c, EVALUATION_ID_PATTERN, "an evaluation id");
      const page = await listEvaluations(evaluationDeps(c), owner, query);
      return c.json(
        { object: "list" as const, data: page.data.map(evaluationJson), has_more: page.hasMore },
        200,
      );
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/evaluations/{id}",
      operationId: "getEvaluation",
      summary: "Get an evaluation: status, progress and, once done, metrics per question",
      request: byId,
      responses: { 200: jsonResponse("The evaluation.", Evaluation) },
      errors: ["evaluation_not_found"],
    },
    EVALUATION_CALLERS,
    async function getEvaluationHandler(c, owner) {
      return c.json(evaluationJson(await getEvaluation(evaluationDeps(c), owner, pathId(c))), 200);
    },
  ),
  apiAndConsole(
    {
      method: "post",
      path: "/v1/evaluations/{id}/cancel",
      operationId: "cancelEvaluation",
      summary: "Cancel a queued, running or paused evaluation",
      request: byId,
      responses: { 200: jsonResponse("The evaluation (a finished one as it is).", Evaluation) },
      errors: ["evaluation_not_found"],
    },
    EVALUATION_CALLERS,
    async function cancelEvaluationHandler(c, owner) {
      return c.json(evaluationJson(await cancelEvaluation(evaluationDeps(c), owner, pathId(c))), 200);
    },
  ),
  apiAndConsole(
    {
      method: "delete",
      path: "/v1/evaluations/{id}",
      operationId: "deleteEvaluation",
      summary: "Delete an evaluation with its items and answers",
      request: byId,
      responses: { 200: jsonResponse("The deleted evaluation's id.", DeletedEvaluation) },
      errors: ["evaluation_not_found"],
    },
    EVALUATION_CALLERS,
    async function deleteEvaluationHandler(c, owner) {
      const id = await deleteEvaluation(evaluationDeps(c), owner, pathId(c));
      return c.json({ id, object: "evaluation" as const, deleted: true as const }, 200);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/evaluations/{id}/items",
      operationId: "listEvaluationItems",
      summary: "List an evaluation's items with the decision each got",
      request: { params: EvaluationPathParams, query: EvaluationItemsQuery },
      responses: { 200: jsonResponse("A page of items in upload order.", EvaluationItemList) },
      errors: ["evaluation_not_found", ...LIST_ERRORS],
    },
    EVALUATION_CALLERS,
    // Upload order, `limit` 1–1000 (default 100), `starting_after` an item index.
    async function listEvaluationItemsHandler(c, owner) {
      const q = queryOf(c, ["limit", "starting_after"]);
      const limit = intParam(q, "limit", 1, 1000, 100);
      const after = intParam(q, "starting_after", 0, 999_999, -1);
      const page = await listEvaluationItems(evaluationDeps(c), owner, pathId(c), { limit, after });
      return jsonText(c, itemListJson(page.data, page.hasMore), 200);
    },
  ),
]);
