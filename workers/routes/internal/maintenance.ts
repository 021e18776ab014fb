import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors";
import { BODY_ERRORS, readJsonObject } from "../console/body";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

const MaintenanceObject = z.object({
  object: z.literal("maintenance"),
  enabled: z.boolean(),
  retry_after_seconds: z.number().int(),
});

/**
 * PUT /internal/maintenance (operator): body `{enabled, retry_after_seconds?}` (1–3,600, default 60). While
 * on, every console route answers 503 `maintenance` with that `retry-after` before doing anything; the public
 * API is not affected. Takes effect everywhere within about a second.
 */
export const setMaintenance = endpoint(
  {
    method: "put",
    path: "/internal/maintenance",
    operationId: "setConsoleMaintenance",
    summary: "Console maintenance switch (operator)",
    auth: "admin-token",
    hidden: true,
    responses: { 200: jsonResponse("The switch.", MaintenanceObject) },
    errors: [...BODY_ERRORS, "maintenance"],
  },
  async function setMaintenanceHandler(c) {
    const body = await readJsonObject(c, {
      allowed: ["enabled", "retry_after_seconds"],
      required: ["enabled"],
    });
    if (typeof body.enabled !== "boolean") throw new ApiError("invalid_type", { param: "enabled" });
    const wait = body.retry_after_seconds ?? 60;
    if (typeof wait !== "number") throw new ApiError("invalid_type", { param: "retry_after_seconds" });
    if (!Number.isInteger(wait) || wait < 1 || wait > 3600)
      throw new ApiError("invalid_value", { param: "retry_after_seconds" });
    await c.var.maintenance.set({ enabled: body.enabled, retryAfterSeconds: wait }).catch(() => {
      throw new ApiError("maintenance", { message: "The switch could not be saved." });
    });
    return c.json({ object: "maintenance" as const, enabled: body.enabled, retry_after_seconds: wait }, 200);
  },
);
