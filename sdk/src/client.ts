import { Batches } from "./batches.js";
import type {
  Calibration,
  CalibrationList,
  CalibrationPreview,
  CreateCalibrationRequest,
} from "./calibration-types.js";
import type { DecideRequest, Decision, Questions } from "./decide-types.js";
import type {
  CreateEvaluationRequest,
  DeletedEvaluation,
  Evaluation,
  EvaluationItemList,
  EvaluationList,
  WaitOptions,
} from "./evaluation-types.js";
import { limitErrors, limitsFor } from "./limits.js";
import { type NAMESPACED_METHODS, OPERATIONS, type Operation, type OperationName } from "./operations.js";
import type {
  Balance,
  KeyObject,
  List,
  Model,
  ModelLimits,
  OpenApiDocument,
  PlanList,
  UsageQuery,
  UsageReport,
} from "./resource-types.js";
import { Reviews } from "./reviews.js";
import { DEFAULT_TIMEOUTS } from "./timeouts.js";
import {
  type ApiResponse,
  type Call,
  newIdempotencyKey,
  type RequestOptions,
  Transport,
  type TransportOptions,
} from "./transport.js";
import { webhooks } from "./webhooks.js";

/** Settings of a client. */
export interface ClientOptions extends TransportOptions {
  /**
   * Check a decide request's counts (questions, options, levels) against GET /v1/models before sending it
   * (default false: the API checks them anyway).
   */
  checkLimits?: boolean;
}

/** Options of `decide()`. */
export type DecideOptions = RequestOptions;

/** How long the model list is reused before it is asked for again (limits may change within v1). */
const MODELS_TTL_MS = 5 * 60_000;

/**
 * The svc API client: one method per public operation, typed answers, retries by the spec's rules, errors
 * as `SvcError` values. Runs wherever `fetch` does.
 */
export class SvcClient {
  /** The batch routes: `create`, `retrieve`, `list`, `cancel`, `delete`, `results`. */
  readonly batches: Batches;
  /** Review rules, the queue and the loop (issue 51). */
  readonly reviews: Reviews;
  /** Webhook signatures: `verify` a call your endpoint received, `sign` one for your tests. */
  readonly webhooks = webhooks;
  private readonly transport: Transport;
  private models: { at: number; list: Promise<List<Model>> } | undefined;

  constructor(private readonly options: ClientOptions) {
    this.transport = new Transport(options);
    this.batches = new Batches(this.transport, options.timeoutMs ?? DEFAULT_TIMEOUTS.timeoutMs);
    this.reviews = new Reviews(this.transport);
  }

  /**
   * POST /v1/decide. The answers are typed by the questions: `answers.q.choice` of a pick is the union of its
   * labels, a rate's `levels` its levels, a check's answer a `probability`. An idempotency key is made when
   * none is given and sent on every attempt, so a retried 500 is never charged twice.
   */
  async decide<const Q extends Questions>(
    request: DecideRequest<Q>,
    options: DecideOptions = {},
  ): Promise<Decision<Q>> {
    return (await this.decideWithResponse(request, options)).data;
  }

  /** `decide()` with the answer's meta (request id, replay flag, rate-limit headers, attempts). */
  async decideWithResponse<const Q extends Questions>(
    request: DecideRequest<Q>,
    options: DecideOptions = {},
  ): Promise<ApiResponse<Decision<Q>>> {
    if (this.options.checkLimits) {
      const limits = await this.limits(request.model, options);
      const [first] = limits ? limitErrors(request, limits) : [];
      if (first) throw first;
    }
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    return this.call<Decision<Q>>("decide", { body: request }, { ...options, idempotencyKey });
  }

  /** GET /v1/models: every model version and its limits. */
  async listModels(options?: RequestOptions): Promise<List<Model>> {
    return (await this.call<List<Model>>("listModels", {}, options)).data;
  }

  /**
   * The limits a request naming `model` (default `svc-1`) must keep, read from GET /v1/models (reused for
   * five minutes); undefined when no active model has that name.
   */
  async limits(model = "svc-1", options?: RequestOptions): Promise<ModelLimits | undefined> {
    if (!this.models || Date.now() - this.models.at > MODELS_TTL_MS) {
      const list = this.listModels(options);
      this.models = { at: Date.now(), list };
      list.catch(() => {
        this.models = undefined;
      });
    }
    return limitsFor((await this.models.list).data, model);
  }

  /** GET /v1/key: the calling key. */
  async getKey(options?: RequestOptions): Promise<KeyObject> {
    return (await this.call<KeyObject>("getKey", {}, options)).data;
  }

  /** GET /v1/balance (scope `balance:read`). */
  async getBalance(options?: RequestOptions): Promise<Balance> {
    return (await this.call<Balance>("getBalance", {}, options)).data;
  }

  /** GET /v1/usage (scope `usage:read`): usage per key by day or hour. */
  async getUsage(query: UsageQuery, options?: RequestOptions): Promise<UsageReport> {
    return (await this.call<UsageReport>("getUsage", { query: { ...query } }, options)).data;
  }

  /** GET /v1/plans: plans, seats and top-up packs (public, no key). */
  async listPublicPlans(options?: RequestOptions): Promise<PlanList> {
    return (await this.call<PlanList>("listPublicPlans", {}, options)).data;
  }

  /** GET /v1/openapi.json: the API's OpenAPI 3.1 document (public). */
  async getOpenApiDocument(options?: RequestOptions): Promise<OpenApiDocument> {
    return (await this.call<OpenApiDocument>("getOpenApiDocument", {}, options)).data;
  }

  /**
   * POST /v1/evaluations (test keys only): scores the labelled items in the background on the account's daily
   * test quota; answers at once with the evaluation, `queued`. Poll it with `waitForEvaluation`.
   */
  async createEvaluation(request: CreateEvaluationRequest, options?: RequestOptions): Promise<Evaluation> {
    return (await this.call<Evaluation>("createEvaluation", { body: request }, options)).data;
  }

  /** GET /v1/evaluations: the account's evaluations, newest first (`limit` 1–100, `starting_after` an id). */
  async listEvaluations(
    query: { limit?: number; starting_after?: string } = {},
    options?: RequestOptions,
  ): Promise<EvaluationList> {
    const q = { limit: query.limit?.toString(), starting_after: query.starting_after };
    return (await this.call<EvaluationList>("listEvaluations", { query: q }, options)).data;
  }

  /** GET /v1/evaluations/{id}: status, progress and, once done, metrics per question id. */
  async getEvaluation(id: string, options?: RequestOptions): Promise<Evaluation> {
    return (await this.call<Evaluation>("getEvaluation", {}, options, id)).data;
  }

  /** POST /v1/evaluations/{id}/cancel: a finished evaluation is answered as it is. */
  async cancelEvaluation(id: string, options?: RequestOptions): Promise<Evaluation> {
    return (await this.call<Evaluation>("cancelEvaluation", {}, options, id)).data;
  }

  /** DELETE /v1/evaluations/{id}: the evaluation with its items and answers. */
  async deleteEvaluation(id: string, options?: RequestOptions): Promise<DeletedEvaluation> {
    return (await this.call<DeletedEvaluation>("deleteEvaluation", {}, options, id)).data;
  }

  /** GET /v1/evaluations/{id}/items: the items in upload order with the Decision each got. */
  async listEvaluationItems(
    id: string,
    query: { limit?: number; starting_after?: number } = {},
    options?: RequestOptions,
  ): Promise<EvaluationItemList> {
    const q = { limit: query.limit?.toString(), starting_after: query.starting_after?.toString() };
    return (await this.call<EvaluationItemList>("listEvaluationItems", { query: q }, options, id)).data;
  }

  /**
   * Polls `getEvaluation` until the run stops moving: `done`, `cancelled`, `failed`, or `paused` (the daily
   * test quota is used up; `resumes_at` says when it goes on). Rejects after `timeoutMs` (default 30 min).
   */
  async waitForEvaluation(id: string, wait: WaitOptions = {}, options?: RequestOptions): Promise<Evaluation> {
    const interval = wait.intervalMs ?? 2_000;
    const end = Date.now() + (wait.timeoutMs ?? 30 * 60_000);
    for (;;) {
      const e = await this.getEvaluation(id, { ...options, signal: wait.signal ?? options?.signal });
      if (e.status !== "queued" && e.status !== "running") return e;
      if (Date.now() + interval > end)
        throw new Error(`evaluation ${id} still ${e.status} (${e.progress.done}/${e.progress.total})`);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, interval);
        wait.signal?.addEventListener("abort", () => {
          clearTimeout(t);
          reject(wait.signal?.reason ?? new Error("aborted"));
        });
      });
    }
  }

  /**
   * POST /v1/calibrations: fits a map for one question on a `done` evaluation's labels and applies it at once
   * to the account's decides asking that question, as written, of the evaluation's exact version (replacing
   * the question's previous calibration). Sent again only after 429 and 503.
   */
  async createCalibration(request: CreateCalibrationRequest, options?: RequestOptions): Promise<Calibration> {
    return (await this.call<Calibration>("createCalibration", { body: request }, options)).data;
  }

  /** POST /v1/calibration-previews: the same fit and metrics as `createCalibration`, stored nowhere. */
  async previewCalibration(
    request: CreateCalibrationRequest,
    options?: RequestOptions,
  ): Promise<CalibrationPreview> {
    return (await this.call<CalibrationPreview>("previewCalibration", { body: request }, options)).data;
  }

  /** GET /v1/calibrations: the account's calibrations, active or not, newest first. */
  async listCalibrations(
    query: { limit?: number; starting_after?: string } = {},
    options?: RequestOptions,
  ): Promise<CalibrationList> {
    const q = { limit: query.limit?.toString(), starting_after: query.starting_after };
    return (await this.call<CalibrationList>("listCalibrations", { query: q }, options)).data;
  }

  /** GET /v1/calibrations/{id}: a calibration, active or not. */
  async getCalibration(id: string, options?: RequestOptions): Promise<Calibration> {
    return (await this.call<Calibration>("getCalibration", {}, options, id)).data;
  }

  /** DELETE /v1/calibrations/{id}: stops applying it (`active: false`); replays keep the answers it gave. */
  async deleteCalibration(id: string, options?: RequestOptions): Promise<Calibration> {
    return (await this.call<Calibration>("deleteCalibration", {}, options, id)).data;
  }

  /**
   * POST /v1/calibrations/{id}/activate: applies a stored, inactive calibration (a review loop's fit), replacing
   * the question's active one (409 `calibration_limit_reached` past the cap).
   */
  async activateCalibration(id: string, options?: RequestOptions): Promise<Calibration> {
    return (await this.call<Calibration>("activateCalibration", {}, options, id)).data;
  }

  /**
   * Any route, for operations newer than this SDK: same headers, retries and errors as the typed methods.
   * `auth: false` leaves the API key out.
   */
  request<T>(call: Call, options?: RequestOptions): Promise<ApiResponse<T>> {
    return this.transport.send<T>(call, options);
  }

  private call<T>(
    name: Exclude<OperationName, keyof typeof NAMESPACED_METHODS>,
    parts: Pick<Call, "body" | "query">,
    options?: RequestOptions,
    id?: string,
  ): Promise<ApiResponse<T>> {
    const { method, path: template, auth, idempotent }: Operation = OPERATIONS[name];
    const path = id === undefined ? template : template.replace("{id}", encodeURIComponent(id));
    return this.transport.send<T>({ method, path, auth, idempotent, ...parts }, options);
  }
}
