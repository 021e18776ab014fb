import { z } from "@hono/zod-openapi";
import { orMaintenance } from "../../accounts/unavailable";
import { runAlertTick } from "../../alerts/tick";
import { resetBaselines } from "../../stores/canary-baselines";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";
import { executionContextOf, tickJson } from "./alerts";

const CanaryRun = z.object({
  object: z.literal("alert_evaluation"),
  redis: z.string().nullable(),
  postgres: z.string().nullable(),
  pool: z.object({ listed: z.number().int(), ready: z.number().int() }).nullable(),
  canary: z
    .array(z.record(z.string(), z.unknown()))
    .nullable()
    .openapi({ description: "One check per worker × exact version; null when the canary could not run." }),
  opened: z.array(z.string()),
  resolved: z.array(z.string()),
  sent: z.number().int(),
});

/**
 * POST /internal/canary/run (operator): the canary now, as the cron runs it each minute: the README's decide
 * with `CANARY_API_KEY` on every worker × exact version, compared with the recorded bytes; opens or resolves
 * each worker's canary incident. `canary` is null when it could not run (no key, a store down, no registry).
 */
export const runCanaryRoute = endpoint(
  {
    method: "post",
    path: "/internal/canary/run",
    operationId: "runCanary",
    summary: "Run the canary now (operator)",
    auth: "admin-token",
    hidden: true,
    responses: { 200: jsonResponse("The canary's checks and what they changed.", CanaryRun) },
    errors: [],
  },
  async function runCanaryHandler(c) {
    const report = await runAlertTick(c.env, executionContextOf(c), { checks: false });
    return c.json(tickJson(report), 200);
  },
);

const ResetObject = z.object({ object: z.literal("canary_baselines_reset"), deleted: z.number().int() });

/**
 * DELETE /internal/canary/baselines?model=&numerics_class= (operator): forgets the recorded answer bytes (all,
 * one exact version, or one version × class); the canary records the next ones it sees. For a deliberate
 * change of bytes (a new class in service), never to silence a mismatch.
 */
export const resetCanaryBaselines = endpoint(
  {
    method: "delete",
    path: "/internal/canary/baselines",
    operationId: "resetCanaryBaselines",
    summary: "Forget the canary's recorded answers (operator)",
    auth: "admin-token",
    hidden: true,
    request: {
      query: z.object({ model: z.string().optional(), numerics_class: z.string().optional() }),
    },
    responses: { 200: jsonResponse("How many recordings were deleted.", ResetObject) },
    errors: ["maintenance"],
  },
  async function resetCanaryBaselinesHandler(c) {
    const model = c.req.query("model") || undefined;
    const numericsClass = c.req.query("numerics_class") || undefined;
    const deleted = await orMaintenance("canary", () => resetBaselines(c.var.db, { model, numericsClass }));
    return c.json({ object: "canary_baselines_reset" as const, deleted }, 200);
  },
);
