import type { DecideRequest, Decision, Questions } from "./decide-types.js";
import { limitErrors, limitsFor } from "./limits.js";
import { OPERATIONS, type OperationName } from "./operations.js";
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
import {
  type ApiResponse,
  type Call,
  newIdempotencyKey,
  type RequestOptions,
  Transport,
  type TransportOptions,
} from "./transport.js";

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
  private readonly transport: Transport;
  private models: { at: number; list: Promise<List<Model>> } | undefined;

  constructor(private readonly options: ClientOptions) {
    this.transport = new Transport(options);
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
   * Any route, for operations newer than this SDK: same headers, retries and errors as the typed methods.
   * `auth: false` leaves the API key out.
   */
  request<T>(call: Call, options?: RequestOptions): Promise<ApiResponse<T>> {
    return this.transport.send<T>(call, options);
  }

  private call<T>(
    name: OperationName,
    parts: Pick<Call, "body" | "query">,
    options?: RequestOptions,
  ): Promise<ApiResponse<T>> {
    const { method, path, auth } = OPERATIONS[name];
    return this.transport.send<T>({ method, path, auth, ...parts }, options);
  }
}
