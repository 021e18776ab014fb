import type { Env } from "../env";
import type { RateLimitState } from "../limits/key-limits";
import type { Services } from "../services";
import type { KeyRecord } from "../stores/keys";

/** Who calls a console route: the account the session belongs to. */
export interface ConsoleCaller {
  accountId: string;
}

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
  /** The console caller (set by the console auth; see routes/console/act-as.ts until sessions land). */
  session: ConsoleCaller;
  /** Real remaining counts from the rate limiter; absent until a limiter sets them. */
  rateLimit: RateLimitState | undefined;
}

/** Hono environment of the edge app. */
export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
