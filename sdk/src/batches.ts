import type {
  Batch,
  BatchInput,
  BatchList,
  BatchListQuery,
  BatchResultLine,
  DeletedBatch,
} from "./batch-types.js";
import { canStreamUploads, JSONL, jsonLines, uploadOf } from "./jsonl.js";
import { OPERATIONS, type Operation, type OperationName } from "./operations.js";
import type { ApiResponse, Call, RequestOptions, StreamedBody, Transport } from "./transport.js";

/** Options of `batches.create`. */
export interface CreateBatchOptions extends RequestOptions {
  /**
   * `idempotency-key`: the same key with the same lines answers the batch it created (201,
   * `meta.replayed`), with other lines 422 `idempotency_key_reused`. With a key the create is sent again
   * after any retryable failure; without one only after 429 and 503, where the API did nothing.
   */
  idempotencyKey?: string;
  /**
   * Stream lines given as an iterable, async iterable or byte stream instead of gathering them first
   * (default: where the runtime can send a stream, i.e. not in browsers). A streamed upload is sent once.
   */
  streamUpload?: boolean;
}

/** Options of `batches.results`. */
export interface BatchResultsOptions extends RequestOptions {
  /** Longest pause between two reads of the body, ms (default the client's `timeoutMs`, 60 s). */
  idleTimeoutMs?: number;
}

/**
 * The batch routes (issue 42), as `client.batches`: up to 100,000 decide requests in one JSONL upload, run in
 * the background, their answers read back as they are stored. Every method takes the usual `RequestOptions`.
 */
export class Batches {
  constructor(
    private readonly transport: Transport,
    private readonly idleTimeoutMs: number,
  ) {}

  /**
   * POST /v1/batches: uploads the lines (JSONL, one `{custom_id, body}` per line) and answers the batch,
   * `queued`. Lines may be an array, any (async) iterable, or JSONL already written (string, Blob, stream).
   * The API checks every line before it stores any: the first invalid one is a 422 whose `param` names it
   * (`lines.3.body.questions.q.instructions`).
   */
  async create(lines: BatchInput, options: CreateBatchOptions = {}): Promise<Batch> {
    return (await this.createWithResponse(lines, options)).data;
  }

  /** `create()` with the answer's meta (`replayed` when an idempotency key answered an earlier batch). */
  async createWithResponse(lines: BatchInput, options: CreateBatchOptions = {}): Promise<ApiResponse<Batch>> {
    const { streamUpload, ...rest } = options;
    const upload = await uploadOf(lines, streamUpload ?? canStreamUploads());
    const call = { ...this.call("createBatch"), upload, idempotent: options.idempotencyKey !== undefined };
    return this.transport.send<Batch>(call, rest);
  }

  /** GET /v1/batches/{id}: status, counts and usage so far. */
  async retrieve(id: string, options?: RequestOptions): Promise<Batch> {
    return (await this.transport.send<Batch>(this.call("getBatch", id), options)).data;
  }

  /** GET /v1/batches: the account's batches, newest first (`limit` 1–100, `starting_after` a batch id). */
  async list(query: BatchListQuery = {}, options?: RequestOptions): Promise<BatchList> {
    const q = { limit: query.limit?.toString(), starting_after: query.starting_after };
    return (await this.transport.send<BatchList>({ ...this.call("listBatches"), query: q }, options)).data;
  }

  /** POST /v1/batches/{id}/cancel: lines not yet run are never run; a finished batch is answered as it is. */
  async cancel(id: string, options?: RequestOptions): Promise<Batch> {
    return (await this.transport.send<Batch>(this.call("cancelBatch", id), options)).data;
  }

  /** DELETE /v1/batches/{id}: a finished batch with its lines and results (409 `batch_not_finished` before). */
  async delete(id: string, options?: RequestOptions): Promise<DeletedBatch> {
    return (await this.transport.send<DeletedBatch>(this.call("deleteBatch", id), options)).data;
  }

  /**
   * GET /v1/batches/{id}/results: one line per finished request, in input order, parsed as the body arrives
   * (never read whole: a batch may have 100,000 lines). `for await (const line of client.batches.results(id))`;
   * leaving the loop early closes the connection. A line has `body` (the Decision, status 200) or `error`
   * (the envelope's fields, the status it ended with).
   */
  async *results(
    id: string,
    options: BatchResultsOptions = {},
  ): AsyncGenerator<BatchResultLine, void, undefined> {
    const { idleTimeoutMs, ...rest } = options;
    const call = { ...this.call("getBatchResults", id), accept: `${JSONL}, application/json` };
    const { data } = await this.transport.sendStreamed(call, rest);
    yield* jsonLines<BatchResultLine>(data as StreamedBody, idleTimeoutMs ?? this.idleTimeoutMs, rest.signal);
  }

  private call(name: OperationName, id?: string): Call {
    const { method, path, auth, idempotent }: Operation = OPERATIONS[name];
    const resolved = id === undefined ? path : path.replace("{id}", encodeURIComponent(id));
    return { method, path: resolved, auth, idempotent };
  }
}
