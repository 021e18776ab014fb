import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ACCOUNT_ID_PATTERN } from "../../../schema/ids";
import { orMaintenance } from "../../accounts/unavailable";
import { runAlertTick, type TickReport } from "../../alerts/tick";
import type { AppEnv } from "../../context/app-env";
import { ApiError } from "../../errors";
import { type Incident, recentIncidents, redisIncidents } from "../../stores/alert-incidents";
import { redisAccess } from "../../stores/redis";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** The request's execution context, or a detached one where there is none (the app called directly). */
export function executionContextOf(c: Context<AppEnv>): ExecutionContext {
  try {
    return c.executionCtx as ExecutionContext;
  } catch {
    return {
      waitUntil: () => {},
      passThroughOnException: () => {},
      props: {},
    } as unknown as ExecutionContext;
  }
}

const TickObject = z.object({
  object: z.literal("alert_evaluation"),
  redis: z.string().nullable().openapi({ description: "Null when Redis answered PING, else why not." }),
  postgres: z
    .string()
    .nullable()
    .openapi({ description: "Null when Postgres answered SELECT 1, else why not." }),
  pool: z.object({ listed: z.number().int(), ready: z.number().int() }).nullable(),
  canary: z.array(z.record(z.string(), z.unknown())).nullable(),
  opened: z.array(z.string()),
  resolved: z.array(z.string()),
  sent: z.number().int(),
});

/** The tick's report as the operator routes answer it. */
export function tickJson(r: TickReport) {
  return { object: "alert_evaluation" as const, ...r, canary: r.canary as Record<string, unknown>[] | null };
}

/**
 * POST /internal/alerts/evaluate (operator): one evaluation of every alert but the canary, as the cron runs it
 * each minute; answers what it saw, the incidents it opened and resolved and the notifications sent.
 */
export const evaluateAlerts = endpoint(
  {
    method: "post",
    path: "/internal/alerts/evaluate",
    operationId: "evaluateAlerts",
    summary: "Evaluate the operator alerts now (operator)",
    auth: "admin-token",
    hidden: true,
    responses: { 200: jsonResponse("What the evaluation saw and did.", TickObject) },
    errors: [],
  },
  async function evaluateAlertsHandler(c) {
    const report = await runAlertTick(c.env, executionContextOf(c), { canary: false });
    return c.json(tickJson(report), 200);
  },
);

const IncidentObject = z.object({
  key: z.string(),
  alert: z.string(),
  state: z.enum(["pending", "open", "resolved"]),
  summary: z.string(),
  detail: z.string(),
  pending_since: z.string(),
  opened_at: z.string().nullable(),
  last_seen_at: z.string(),
  resolved_at: z.string().nullable(),
  notified: z.enum(["none", "opened", "resolved"]),
});
const IncidentList = z.object({ object: z.literal("list"), data: z.array(IncidentObject) });

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function incidentJson(i: Incident): z.infer<typeof IncidentObject> {
  return {
    key: i.key,
    alert: i.alert,
    state: i.resolvedAt !== null ? "resolved" : i.openedAt !== null ? "open" : "pending",
    summary: i.summary,
    detail: i.detail,
    pending_since: iso(i.pendingSince) as string,
    opened_at: iso(i.openedAt),
    last_seen_at: iso(i.lastSeenAt) as string,
    resolved_at: iso(i.resolvedAt),
    notified: i.resolveSentAt !== null ? "resolved" : i.openSentAt !== null ? "opened" : "none",
  };
}

/**
 * GET /internal/alerts (operator): the 100 most recent incidents, unresolved first, with the Postgres-outage
 * incident Redis keeps. A store that does not answer contributes nothing (its own alert says so).
 */
export const listAlerts = endpoint(
  {
    method: "get",
    path: "/internal/alerts",
    operationId: "listAlertIncidents",
    summary: "Recent alert incidents (operator)",
    auth: "admin-token",
    hidden: true,
    responses: { 200: jsonResponse("Incidents, unresolved first.", IncidentList) },
    errors: [],
  },
  async function listAlertsHandler(c) {
    const [fromRedis, fromPostgres] = await Promise.all([
      redisIncidents(redisAccess(c.env))
        .unresolved("postgres_unreachable")
        .catch(() => []),
      recentIncidents(c.var.db, 100).catch(() => []),
    ]);
    return c.json({ object: "list" as const, data: [...fromRedis, ...fromPostgres].map(incidentJson) }, 200);
  },
);

const AppliedObject = z.object({
  object: z.literal("refund_intents_applied"),
  account_id: z.string(),
  applied: z.number().int(),
});

/**
 * POST /internal/accounts/{id}/refund-intents/apply (operator): asks the account's ledger to apply the refunds
 * recorded for it in Postgres now (what the 5-minute sweep does), so a stuck intent is settled by hand.
 * Idempotent: the ledger refunds a request id once. 503 `maintenance` when the ledger or Postgres fails.
 */
export const applyRefundIntents = endpoint(
  {
    method: "post",
    path: "/internal/accounts/{id}/refund-intents/apply",
    operationId: "applyRefundIntents",
    summary: "Apply an account's pending refund intents (operator)",
    auth: "admin-token",
    hidden: true,
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: jsonResponse("How many intents the ledger applied.", AppliedObject) },
    errors: ["invalid_value", "maintenance"],
  },
  async function applyRefundIntentsHandler(c) {
    const id = c.req.param("id") ?? "";
    if (!ACCOUNT_ID_PATTERN.test(id))
      throw new ApiError("invalid_value", { param: "id", message: "Not an account id." });
    const applied = await orMaintenance("ledger", () => c.var.ledger(id).applyRefundIntents(id));
    return c.json({ object: "refund_intents_applied" as const, account_id: id, applied }, 200);
  },
);
