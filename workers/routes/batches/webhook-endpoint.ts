import { ulid } from "ulid";
import {
  SetWebhookEndpointWire,
  WEBHOOK_EVENT_TYPES,
  WebhookEndpoint,
  WebhookEndpointList,
} from "../../../schema/batches";
import { consoleSecret } from "../../accounts/unavailable";
import { checkWebhookUrl, webhookSecret } from "../../batches/webhooks";
import { ApiError } from "../../errors";
import { BODY_ERRORS, readConsoleBody, stringRule } from "../../http/console-body";
import {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  setWebhookEndpoint,
  type WebhookEndpointRow,
} from "../../stores/webhooks";
import { type Endpoint, endpoint } from "../define";
import { jsonResponse } from "../responses";
import { guarded } from "./owners";

function endpointJson(e: WebhookEndpointRow, secret: string | null) {
  return {
    object: "webhook_endpoint" as const,
    url: e.url,
    events: [...WEBHOOK_EVENT_TYPES],
    created: Math.floor(e.createdAt / 1000),
    secret,
  };
}

const notFound = () =>
  new ApiError("webhook_endpoint_not_found", { message: "The account has no webhook endpoint." });

/** GET /v1/console/webhook-endpoint: the account's endpoint, without its secret. */
const getWebhookEndpoint = endpoint(
  {
    method: "get",
    path: "/v1/console/webhook-endpoint",
    operationId: "getConsoleWebhookEndpoint",
    summary: "The account's webhook endpoint for batch events",
    auth: "session",
    responses: { 200: jsonResponse("The endpoint (`secret` null: it is shown once).", WebhookEndpoint) },
    errors: ["webhook_endpoint_not_found"],
  },
  function getWebhookEndpointHandler(c) {
    return guarded(async () => {
      const e = await findWebhookEndpoint(c.var.db, c.var.session.accountId);
      if (!e) throw notFound();
      return c.json(endpointJson(e, null), 200);
    });
  },
);

/**
 * GET /v1/console/webhook-endpoints: the account's endpoints, an empty list when none is set (issue 54: the
 * Settings page of a fresh account asks without an error answer; GET /v1/console/webhook-endpoint keeps its 404).
 */
const listWebhookEndpoints = endpoint(
  {
    method: "get",
    path: "/v1/console/webhook-endpoints",
    operationId: "listConsoleWebhookEndpoints",
    summary: "The account's webhook endpoints for batch events (none, or its one)",
    auth: "session",
    responses: { 200: jsonResponse("The endpoints (`secret` null: it is shown once).", WebhookEndpointList) },
    errors: [],
  },
  function listWebhookEndpointsHandler(c) {
    return guarded(async () => {
      const e = await findWebhookEndpoint(c.var.db, c.var.session.accountId);
      return c.json({ object: "list" as const, data: e ? [endpointJson(e, null)] : [] }, 200);
    });
  },
);

/** POST /v1/console/webhook-endpoint: sets (or replaces) the endpoint; its new signing secret is shown once. */
const setWebhookEndpointRoute = endpoint(
  {
    method: "post",
    path: "/v1/console/webhook-endpoint",
    operationId: "setConsoleWebhookEndpoint",
    summary: "Set the account's webhook endpoint (https); answers its signing secret once",
    auth: "session+csrf",
    request: {
      body: { required: true, content: { "application/json": { schema: SetWebhookEndpointWire } } },
    },
    responses: {
      200: jsonResponse("The endpoint with its `secret` (`whsec_…`), shown this once.", WebhookEndpoint),
    },
    errors: BODY_ERRORS,
  },
  function setWebhookEndpointHandler(c) {
    return guarded(async () => {
      const { fields } = await readConsoleBody(c, { url: stringRule(1, 2048) });
      const url = checkWebhookUrl(fields.url as string, c.env.ENVIRONMENT);
      const e = await setWebhookEndpoint(c.var.db, c.var.session.accountId, `we_${ulid()}`, url);
      return c.json(endpointJson(e, await webhookSecret(consoleSecret(c.env), e.id)), 200);
    });
  },
);

/** DELETE /v1/console/webhook-endpoint: no more calls (events not yet delivered are dropped). */
const deleteWebhookEndpointRoute = endpoint(
  {
    method: "delete",
    path: "/v1/console/webhook-endpoint",
    operationId: "deleteConsoleWebhookEndpoint",
    summary: "Remove the account's webhook endpoint",
    auth: "session+csrf",
    responses: { 200: jsonResponse("The removed endpoint.", WebhookEndpoint) },
    errors: ["webhook_endpoint_not_found"],
  },
  function deleteWebhookEndpointHandler(c) {
    return guarded(async () => {
      const e = await findWebhookEndpoint(c.var.db, c.var.session.accountId);
      if (!e || !(await deleteWebhookEndpoint(c.var.db, c.var.session.accountId))) throw notFound();
      return c.json(endpointJson(e, null), 200);
    });
  },
);

export const WEBHOOK_ENDPOINTS: readonly Endpoint[] = [
  listWebhookEndpoints,
  getWebhookEndpoint,
  setWebhookEndpointRoute,
  deleteWebhookEndpointRoute,
];
