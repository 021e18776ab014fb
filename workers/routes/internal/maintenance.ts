import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors";
import { BODY_ERRORS, booleanRule, intRule, readConsoleBody } from "../../http/console-body";
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
    const { fields } = await readConsoleBody(c, {
      enabled: booleanRule(),
      retry_after_seconds: intRule(1, 3600, false),
    });
    const enabled = fields.enabled as boolean;
    const wait = (fields.retry_after_seconds as number | undefined) ?? 60;
    await c.var.maintenance.set({ enabled, retryAfterSeconds: wait }).catch(() => {
      throw new ApiError("maintenance", { message: "The switch could not be saved." });
    });
    return c.json({ object: "maintenance" as const, enabled, retry_after_seconds: wait }, 200);
  },
);
