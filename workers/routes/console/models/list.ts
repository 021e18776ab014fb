import { endpoint } from "../../define";
import { ModelListSchema, modelList } from "../../models/list";
import { jsonResponse } from "../../responses";

/** GET /v1/console/models (console twin of `listModels`): which exact version each alias answers with now. */
export const listConsoleModels = endpoint(
  {
    method: "get",
    path: "/v1/console/models",
    operationId: "listConsoleModels",
    summary: "Model versions and their limits",
    auth: "session",
    responses: { 200: jsonResponse("Every model version.", ModelListSchema) },
    errors: [],
  },
  function listConsoleModelsHandler(c) {
    return c.json(modelList(), 200);
  },
);
