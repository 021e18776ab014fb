import { Hono } from "hono";
import { MODELS, type ModelLimits, type ModelVersion } from "../../../schema/models";
import type { Env } from "../../env";

/** One entry of GET /v1/models (shape documented in docs/decisions.md, "Decide contract"). */
export interface ModelObject extends ModelLimits {
  object: "model";
  id: string;
  alias: string | null;
  served_by: ModelVersion["served_by"];
  status: ModelVersion["status"];
  calibration: string;
}

/** The list body: every known version, active first in catalog order, then retired ones. */
export function modelList(): { object: "list"; data: ModelObject[] } {
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

/** GET /v1/models: any valid key, any scopes (authentication is the front door's middleware). */
export const modelsRoutes = new Hono<{ Bindings: Env }>().get("/v1/models", function listModels(c) {
  return c.json(modelList());
});
