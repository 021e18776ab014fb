import type { Context } from "hono";
import {
  CALIBRATION_ID_PATTERN,
  Calibration,
  CalibrationList,
  CalibrationListQuery,
  CalibrationPathParams,
  CalibrationPreview,
  CreateCalibrationWire,
} from "../../../schema/calibrations";
import { QUESTION_ID_PATTERN } from "../../../schema/decide";
import { EVALUATION_ID_PATTERN } from "../../../schema/evaluations";
import { calibrationJson, calibrationListJson } from "../../calibrations/json";
import {
  activateCalibration,
  type CalibrationInput,
  createCalibration,
  deleteCalibration,
  getCalibration,
  listCalibrations,
  previewCalibration,
} from "../../calibrations/service";
import type { AppEnv } from "../../context/app-env";
import { patternRule, readConsoleBody } from "../../http/console-body";
import { pageQuery } from "../../http/list-query";
import { pathId } from "../../http/path-id";
import { apiAndConsole, apisThenConsoles, type Endpoint } from "../define";
import { jsonResponse, jsonText } from "../responses";
import { kickInBackground } from "../runner-kick";
import { CALIBRATION_CALLERS, CREATE_ERRORS, LIST_ERRORS, PREVIEW_ERRORS } from "./owners";

/** The body of a fit: `idempotency-key` if sent (400), size (413), content type (400), strict JSON (400), fields (422). */
async function readFitBody(c: Context<AppEnv>): Promise<CalibrationInput> {
  const { fields } = await readConsoleBody(c, {
    evaluation: patternRule(EVALUATION_ID_PATTERN, true),
    question: patternRule(QUESTION_ID_PATTERN, true),
  });
  return { evaluationId: fields.evaluation as string, questionId: fields.question as string };
}

const fitBody = {
  body: { required: true, content: { "application/json": { schema: CreateCalibrationWire } } },
};

/** Calibrations (issue 44): any key of the account with `decide`, each in its own mode (issue 50), then their console twins. */
export const CALIBRATION_ENDPOINTS: readonly Endpoint[] = apisThenConsoles([
  apiAndConsole(
    {
      method: "post",
      path: "/v1/calibrations",
      operationId: "createCalibration",
      summary: "Fit a calibration of one question on a done evaluation's labels, and apply it",
      request: fitBody,
      responses: {
        201: jsonResponse("The calibration, fitted in the request: `active`.", Calibration),
        202: jsonResponse(
          "The calibration, `fitting`: the evaluation is above the in-request bound, so the account's runner fits it. Wait with `GET /v1/calibrations/{id}` (the `Location` header) until it is `active` or `failed`.",
          Calibration,
        ),
      },
      errors: CREATE_ERRORS,
    },
    CALIBRATION_CALLERS,
    async function createCalibrationHandler(c, owner) {
      const row = await createCalibration(c.var, owner, await readFitBody(c), {
        kick: kickInBackground(c),
      });
      if (row.status !== "fitting") return jsonText(c, calibrationJson(row), 201);
      // The create's own path: /v1/calibrations/{id}, or the console twin's /v1/console/calibrations/{id}.
      c.header("location", `${c.req.path.replace(/\/$/, "")}/${row.id}`);
      return jsonText(c, calibrationJson(row), 202);
    },
  ),
  apiAndConsole(
    {
      method: "post",
      path: "/v1/calibration-previews",
      operationId: "previewCalibration",
      summary: "Fit and measure a calibration without storing or applying it",
      request: fitBody,
      responses: {
        200: jsonResponse(
          "What the calibration would be: stored nowhere, applied to nothing.",
          CalibrationPreview,
        ),
      },
      errors: PREVIEW_ERRORS,
    },
    CALIBRATION_CALLERS,
    async function previewCalibrationHandler(c, owner) {
      const row = await previewCalibration(c.var, owner, await readFitBody(c));
      return jsonText(c, calibrationJson(row, true), 200);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/calibrations",
      operationId: "listCalibrations",
      summary: "List the account's calibrations, newest first (active or not)",
      request: { query: CalibrationListQuery },
      responses: { 200: jsonResponse("A page of calibrations.", CalibrationList) },
      errors: LIST_ERRORS,
    },
    CALIBRATION_CALLERS,
    async function listCalibrationsHandler(c, owner) {
      const query = pageQuery(c, CALIBRATION_ID_PATTERN, "a calibration id");
      const page = await listCalibrations(c.var, owner, query);
      return jsonText(c, calibrationListJson(page.data, page.hasMore), 200);
    },
  ),
  apiAndConsole(
    {
      method: "get",
      path: "/v1/calibrations/{id}",
      operationId: "getCalibration",
      summary: "Get a calibration (a replaced or deleted one stays readable)",
      request: { params: CalibrationPathParams },
      responses: { 200: jsonResponse("The calibration.", Calibration) },
      errors: ["calibration_not_found"],
    },
    CALIBRATION_CALLERS,
    async function getCalibrationHandler(c, owner) {
      const row = await getCalibration(c.var, owner, pathId(c), { kick: kickInBackground(c) });
      return jsonText(c, calibrationJson(row), 200);
    },
  ),
  apiAndConsole(
    {
      method: "post",
      path: "/v1/calibrations/{id}/activate",
      operationId: "activateCalibration",
      summary:
        "Apply a stored, inactive calibration (a review loop's fit), replacing the question's active one",
      request: { params: CalibrationPathParams },
      responses: { 200: jsonResponse("The calibration, `active: true`.", Calibration) },
      errors: ["calibration_not_found", "calibration_not_fitted", "calibration_limit_reached"],
    },
    CALIBRATION_CALLERS,
    async function activateCalibrationHandler(c, owner) {
      return jsonText(c, calibrationJson(await activateCalibration(c.var, owner, pathId(c))), 200);
    },
  ),
  apiAndConsole(
    {
      method: "delete",
      path: "/v1/calibrations/{id}",
      operationId: "deleteCalibration",
      summary: "Stop applying a calibration (it stays readable; replays keep using it)",
      request: { params: CalibrationPathParams },
      responses: { 200: jsonResponse("The calibration, `active: false`.", Calibration) },
      errors: ["calibration_not_found"],
    },
    CALIBRATION_CALLERS,
    async function deleteCalibrationHandler(c, owner) {
      return jsonText(c, calibrationJson(await deleteCalibration(c.var, owner, pathId(c))), 200);
    },
  ),
]);
