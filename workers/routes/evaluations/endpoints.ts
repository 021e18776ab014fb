import { cancelConsoleEvaluation } from "../console/evaluations/cancel";
import { createConsoleEvaluation } from "../console/evaluations/create";
import { deleteConsoleEvaluation } from "../console/evaluations/delete";
import { getConsoleEvaluation } from "../console/evaluations/get";
import { listConsoleEvaluationItems } from "../console/evaluations/items";
import { listConsoleEvaluations } from "../console/evaluations/list";
import type { Endpoint } from "../define";
import { cancelEvaluation } from "./cancel";
import { createEvaluation } from "./create";
import { deleteEvaluation } from "./delete";
import { getEvaluation } from "./get";
import { listEvaluationItems } from "./items";
import { listEvaluations } from "./list";

/** Evaluations (issue 31): the API-key operations (test keys only) and their console twins. */
export const EVALUATION_ENDPOINTS: readonly Endpoint[] = [
  createEvaluation,
  listEvaluations,
  getEvaluation,
  cancelEvaluation,
  deleteEvaluation,
  listEvaluationItems,
  createConsoleEvaluation,
  listConsoleEvaluations,
  getConsoleEvaluation,
  cancelConsoleEvaluation,
  deleteConsoleEvaluation,
  listConsoleEvaluationItems,
];
