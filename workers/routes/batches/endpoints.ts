import { z } from "@hono/zod-openapi";
import {
  BATCH_ID_PATTERN,
  Batch,
  BatchList,
  BatchListQuery,
  BatchPathParams,
  ConsoleBatchQuery,
  DeletedBatch,
} from "../../../schema/batches";
import type { ErrorCode } from "../../../schema/errors";
import { batchJson } from "../../batches/json";
import {
  batchResults,
  cancelBatch,
  createBatch,
  deleteBatch,
  getBatch,
  listBatches,
} from "../../batches/service";
import { declaredLength } from "../../http/body";
import { checkBatchContentType } from "../../http/content-type";
import { IDEMPOTENCY_KEY_MAX } from "../../http/front-door";
import { pageQuery } from "../../http/list-query";
import { pathId } from "../../http/path-id";
import { validateTokenHeader } from "../../http/token-header";
import { apiAndConsole, type Endpoint } from "../define";
import { jsonResponse } from "../responses";
import { BATCH_CALLERS, batchDeps, CREATE_BATCH_ERRORS } from "./owners";
import { WEBHOOK_ENDPOINTS } from "./webhook-endpoint";

const JSONL = "application/jsonl";
const jsonlBody = {
  required: true,
  content: {
    [JSONL]: {
      schema: z.string().openapi({
        description:
          'One line per request: `{"custom_id": "…", "body": <DecideRequest>}`. Also `application/x-ndjson`.',
      }),
    },
  },
};
const NOT_FOUND: readonly ErrorCode[] = ["batch_not_found", "invalid_value"];

/**
 * Batches (issue 42): each API-key operation (scope `decide`, live or test) beside its console twin (the
 * session's account), and the console's webhook endpoint.
 */
export const BATCH_ENDPOINTS: readonly Endpoint[] = [
  ...apiAndConsole(
    {
      method: "post",
      path: "/v1/batches",
      operationId: "createBatch",
      summary: "Upload a batch of decides (JSONL, up to 100,000 lines) to run in the background",
      request: { body: jsonlBody },
      responses: {
        201: jsonResponse("The batch, `queued` (a repeat of an idempotency key: the same batch).", Batch),
      },
      errors: CREATE_BATCH_ERRORS,
      consoleRequest: { query: ConsoleBatchQuery },
    },
    BATCH_CALLERS,
    // `idempotency-key` (400), then the content type (400), before anything is counted or read.
    async function createBatchHandler(c, owner) {
      const idempotencyKey =
        validateTokenHeader(c.req.header("idempotency-key"), "idempotency-key", IDEMPOTENCY_KEY_MAX) ?? null;
      checkBatchContentType(c.req.header("content-type"));
      const upload = { idempotencyKey, body: c.req.raw.body, declaredLength: declaredLength(c.req.raw) };
      const { batch, replayed } = await createBatch(batchDeps(c), owner, upload);
      if (replayed) c.header("idempotent-replayed", "true");
      return c.json(batchJson(batch), 201);
    },
  ),
  ...apiAndConsole(
    {
      method: "get",
      path: "/v1/batches",
      operationId: "listBatches",
      summary: "List the account's batches, newest first",
      request: { query: BatchListQuery },
      responses: { 200: jsonResponse("A page of batches.", BatchList) },
      errors: ["unknown_field", "invalid_value"],
    },
    BATCH_CALLERS,
    async function listBatchesHandler(c, owner) {
      const query = pageQuery(c, BATCH_ID_PATTERN, "a batch id");
      const page = await listBatches(batchDeps(c), owner, query);
      return c.json({ object: "list" as const, data: page.data.map(batchJson), has_more: page.hasMore }, 200);
    },
  ),
  ...apiAndConsole(
    {
      method: "get",
      path: "/v1/batches/{id}",
      operationId: "getBatch",
      summary: "Get a batch: its status, counts and cost so far",
      request: { params: BatchPathParams },
      responses: { 200: jsonResponse("The batch.", Batch) },
      errors: NOT_FOUND,
    },
    BATCH_CALLERS,
    async function getBatchHandler(c, owner) {
      return c.json(batchJson(await getBatch(batchDeps(c), owner, pathId(c))), 200);
    },
  ),
  ...apiAndConsole(
    {
      method: "post",
      path: "/v1/batches/{id}/cancel",
      operationId: "cancelBatch",
      summary: "Cancel a batch: lines in flight finish and are billed, the rest never run",
      request: { params: BatchPathParams },
      responses: { 200: jsonResponse("The batch (a finished one as it is).", Batch) },
      errors: NOT_FOUND,
    },
    BATCH_CALLERS,
    async function cancelBatchHandler(c, owner) {
      return c.json(batchJson(await cancelBatch(batchDeps(c), owner, pathId(c))), 200);
    },
  ),
  ...apiAndConsole(
    {
      method: "delete",
      path: "/v1/batches/{id}",
      operationId: "deleteBatch",
      summary: "Delete a finished batch with its lines and results",
      request: { params: BatchPathParams },
      responses: { 200: jsonResponse("The deleted batch's id.", DeletedBatch) },
      errors: [...NOT_FOUND, "batch_not_finished"],
    },
    BATCH_CALLERS,
    async function deleteBatchHandler(c, owner) {
      const id = await deleteBatch(batchDeps(c), owner, pathId(c));
      return c.json({ id, object: "batch" as const, deleted: true as const }, 200);
    },
  ),
  ...apiAndConsole(
    {
      method: "get",
      path: "/v1/batches/{id}/results",
      operationId: "getBatchResults",
      summary: "The finished lines' results as JSONL, in input order",
      request: { params: BatchPathParams },
      responses: {
        200: {
          description:
            'One line per finished input line: `{"custom_id","status":200,"body":<Decision>}` or `{"custom_id","status","error"}`.',
          content: { [JSONL]: { schema: z.string() } },
        },
      },
      errors: NOT_FOUND,
    },
    BATCH_CALLERS,
    async function getBatchResultsHandler(c, owner) {
      const results = await batchResults(batchDeps(c), owner, pathId(c));
      c.header("content-type", "application/jsonl; charset=utf-8");
      c.header("cache-control", "no-store");
      return c.body(results, 200);
    },
  ),
  ...WEBHOOK_ENDPOINTS,
];
