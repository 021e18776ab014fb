import { z } from "@hono/zod-openapi";
import { MODELS } from "../../../schema/models";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

const limit = (description: string, example: number) => z.number().int().openapi({ description, example });

const ModelObjectSchema = z
  .object({
    object: z.literal("model").openapi({ description: "Always `model`.", example: "model" }),
    id: z.string().openapi({
      description: "Exact version: `svc-N.N.N` (GPU) or `svc-fallback-N.N.N` (fallback).",
      example: "svc-1.0.0",
    }),
    alias: z
      .string()
      .nullable()
      .openapi({ description: "The alias that resolves to this version, or null.", example: "svc-1" }),
    served_by: z.enum(["gpu", "fallback"]).openapi({ description: "Serving path of this version." }),
    status: z
      .enum(["active", "retired"])
      .openapi({ description: "A retired version answers 404 `model_retired`." }),
    calibration: z
      .string()
      .openapi({ description: "Calibration version applied.", example: "cal-20261121-0" }),
    max_state_tokens: limit("Rendered state tokens at most.", 16_384),
    max_question_tokens: limit("Tokens per rendered question at most.", 4_096),
    max_total_tokens: limit("Billable tokens per request at most.", 16_384),
    max_questions: limit("Questions per request at most.", 32),
    max_options: limit("Options per pick at most.", 255),
    max_levels: limit("Levels per rate at most.", 10),
    exact_option_probabilities: limit("Pick options with exact probabilities (GPU 255, fallback 20).", 255),
  })
  .openapi("Model");

/** The list of GET /v1/models (and of its console twin). */
export const ModelListSchema = z
  .object({ object: z.literal("list"), data: z.array(ModelObjectSchema) })
  .openapi("ModelList");

/** One entry of GET /v1/models (shape documented in docs/decisions.md, "Decide contract"). */
export type ModelObject = z.infer<typeof ModelObjectSchema>;

/** The list body: every known version, active first in catalog order, then retired ones. */
export function modelList(): z.infer<typeof ModelListSchema> {
  const sorted = [...MODELS].sort((a, b) => Number(a.status === "retired") - Number(b.status === "retired"));
  return {
    object: "list",
    data: sorted.map((m) => ({
      object: "model",
      id: m.id,
      alias: m.alias,
      served_by: m.served_by,
      status: m.status,
      calibration: m.calibration,
      ...m.limits,
    })),
  };
}

/** GET /v1/models: every model version and its limits; any valid key, any scopes. */
export const listModels = endpoint(
  {
    method: "get",
    path: "/v1/models",
    operationId: "listModels",
    summary: "Model versions and their limits",
    auth: "any-key",
    responses: { 200: jsonResponse("Every model version.", ModelListSchema) },
    errors: [],
  },
  function listModelsHandler(c) {
    return c.json(modelList(), 200);
  },
);
