import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  Batch,
  BatchList,
  BatchListQuery,
  BatchPathParams,
  ConsoleBatchQuery,
  DeletedBatch,
} from "../../../schema/batches";
import type { ErrorCode } from "../../../schema/errors";
import {
  type BatchOwner,
  batchResultsResponse,
  cancelBatchResponse,
  createBatchResponse,
  deleteBatchResponse,
  getBatchResponse,
  listBatchesResponse,
} from "../../batches/service";
import type { AppEnv } from "../../context/app-env";
import { type Endpoint, endpoint, type RouteDeclaration } from "../define";
import { jsonResponse } from "../responses";
import { CREATE_BATCH_ERRORS, consoleBatchOwner, guarded, keyBatchOwner } from "./owners";
import { WEBHOOK_ENDPOINTS } from "./webhook-endpoint";

type Serve = (c: Context<AppEnv>, owner: BatchOwner) => Promise<Response>;

/**
 * A batch operation with an API key (scope `decide`, live or test) and its console twin (`/v1/console/…`, the
 * session's account; writes need the CSRF header): one declaration, one handler.
 */
function twins(
  decl: Omit<RouteDeclaration, "auth"> & { operationId: string; path: string },
  serve: Serve,
  write: boolean,
  consoleQuery?: RouteDeclaration["request"],
): Endpoint[] {
  const api = endpoint({ ...decl, auth: { scope: "decide" } }, function batchHandler(c) {
    return guarded(() => serve(c, keyBatchOwner(c)));
  });
  const consoleDecl = {
    ...decl,
    path: decl.path.replace("/v1/", "/v1/console/"),
    operationId: decl.operationId.replace(/^(\w+?)(Batch)/, "$1Console$2"),
    auth: write ? ("session+csrf" as const) : ("session" as const),
    request: { ...decl.request, ...consoleQuery },
  };
  const console = endpoint(consoleDecl, function consoleBatchHandler(c) {
    return guarded(() => serve(c, consoleBatchOwner(c)));
  });
  return [api, console];
}

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

/** Batches (issue 42): the API-key operations and their console twins, and the console's webhook endpoint. */
export const BATCH_ENDPOINTS: readonly Endpoint[] = [
  ...twins(
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
    },
    createBatchResponse,
    true,
    { query: ConsoleBatchQuery },
  ),
  ...twins(
    {
      method: "get",
      path: "/v1/batches",
      operationId: "listBatches",
      summary: "List the account's batches, newest first",
      request: { query: BatchListQuery },
      responses: { 200: jsonResponse("A page of batches.", BatchList) },
      errors: ["unknown_field", "invalid_value"],
    },
    listBatchesResponse,
    false,
  ),
  ...twins(
    {
      method: "get",
      path: "/v1/batches/{id}",
      operationId: "getBatch",
      summary: "Get a batch: its status, counts and cost so far",
      request: { params: BatchPathParams },
      responses: { 200: jsonResponse("The batch.", Batch) },
      errors: NOT_FOUND,
    },
    getBatchResponse,
    false,
  ),
  ...twins(
    {
      method: "post",
      path: "/v1/batches/{id}/cancel",
      operationId: "cancelBatch",
      summary: "Cancel a batch: lines in flight finish and are billed, the rest never run",
      request: { params: BatchPathParams },
      responses: { 200: jsonResponse("The batch (a finished one as it is).", Batch) },
      errors: NOT_FOUND,
    },
    cancelBatchResponse,
    true,
  ),
  ...twins(
    {
      method: "delete",
      path: "/v1/batches/{id}",
      operationId: "deleteBatch",
      summary: "Delete a finished batch with its lines and results",
      request: { params: BatchPathParams },
      responses: { 200: jsonResponse("The deleted batch's id.", DeletedBatch) },
      errors: [...NOT_FOUND, "batch_not_finished"],
    },
    deleteBatchResponse,
    true,
  ),
  ...twins(
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
    batchResultsResponse,
    false,
  ),
  ...WEBHOOK_ENDPOINTS,
];
