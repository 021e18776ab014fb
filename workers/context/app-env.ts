import type { GpuTrace } from "../clients/gpu-pool";
import type { Env } from "../env";
import type { RateLimitState } from "../limits/key-limits";
import type { KeyRecord } from "../stores/keys";
import type { UsageEvent } from "../stores/usage";
import type { Services } from "./services";
import type { ConsoleSession } from "./session";

/** Per-request values on the Hono context (`c.var.…`): the request's identity, its caller, the services. */
export interface AppVariables extends Services {
  /** `req_` + monotonic ULID; equals `x-request-id`, body `id` and `error.request_id`. */
  requestId: string;
  /** The caller's valid `x-client-request-id`, echoed on every response. */
  clientRequestId: string | undefined;
  /** A malformed `x-client-request-id` was sent (answered 400 after the route's auth). */
  clientRequestIdMalformed: boolean;
  /** The authenticated key (set by `requireApiKey`). */
  apiKey: KeyRecord;
  /** The signed-in console caller (set by `requireSession`). */
  session: ConsoleSession;
  /** Real remaining counts from the rate limiter; absent until a limiter sets them. */
  rateLimit: RateLimitState | undefined;
  /** The matched endpoint's operation id (set when the route is mounted: `routes/define.ts`). */
  operationId: string | undefined;
  /** The error envelope's code, when the response is one (set by `renderApiError`). */
  errorCode: string | undefined;
  /** A decide's usage event and GPU trace, for the request line (set by `serveDecide`). */
  decideCall: DecideCall | undefined;
}

/** What a decide hands the request line: the usage event (however it ended) and its GPU attempts. */
export interface DecideCall {
  event: UsageEvent;
  gpu: GpuTrace;
  /** An `idempotency-key` header was sent. */
  idempotencyKeySent: boolean;
}

/** Hono environment of the edge app. */
export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
