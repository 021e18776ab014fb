/**
 * Bindings and variables of the edge Worker. Every variable is documented in README.md
 * ("Configuration"); `npm start` fills them from the local stack.
 */
export interface Env {
  /** One AccountLedger Durable Object per account (balance, allowance, tier). */
  LEDGER: DurableObjectNamespace<import("./ledger/account-ledger").AccountLedger>;
  /** One EvaluationRunner Durable Object per account (runs its evaluations from an alarm). */
  EVALUATIONS: DurableObjectNamespace<import("./runner/runner-object").EvaluationRunner>;
  /** Workers Analytics Engine dataset of the request metrics (issue 43; docs/deploy.md); unbound: none written. */
  METRICS?: AnalyticsEngineDataset;
  /** R2: batch inputs and results (`batches/<id>/input|results/<chunk>.jsonl`). */
  BATCHES: R2Bucket;
  ENVIRONMENT?: string;
  /** Postgres connection string (Neon in production, the local bridge's target locally). */
  DATABASE_URL?: string;
  /** Local only: host:port/path of the Neon WebSocket bridge, e.g. `127.0.0.1:5480/v2`. */
  NEON_WS_PROXY?: string;
  /** Local only: URL of the Neon HTTP SQL bridge, e.g. `http://127.0.0.1:5480/sql`. */
  NEON_HTTP_ENDPOINT?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  /** Comma-separated base URLs of GPU workers: a static override of the registry (docs/deploy.md). */
  GPU_POOL_URLS?: string;
  /** How old an isolate's copy of the GPU registry may get before a call refreshes it (ms, default 5000). */
  GPU_REGISTRY_REFRESH_MS?: string;
  /** Shared HMAC secret for signed GPU calls. */
  GPU_SIGNING_SECRET?: string;
  /** OpenAI-compatible hosted fallback (EU data zone). */
  FALLBACK_BASE_URL?: string;
  FALLBACK_API_KEY?: string;
  FALLBACK_DEPLOYMENT?: string;
  /** Operator token for /internal/* routes (ledger credit); compared as SHA-256 in constant time. */
  ADMIN_TOKEN?: string;
  /** Console secret (≥ 32 characters): keys the HMAC of sign-in codes and derives CSRF tokens. */
  CONSOLE_SECRET?: string;
  /** HTTP e-mail API (Resend's shape): base URL (default https://api.resend.com), key, sender address. */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  EMAIL_FROM?: string;
  /** OpenID Connect provider: issuer(s) and client id(s) comma-separated, key set, browser-flow endpoints. */
  IDP_ISSUER?: string;
  IDP_JWKS_URL?: string;
  IDP_CLIENT_IDS?: string;
  IDP_AUTHORIZE_URL?: string;
  IDP_TOKEN_URL?: string;
  IDP_CLIENT_SECRET?: string;
  /** Stripe secret API key (`sk_…`); unset: billing routes answer 503 `maintenance`. */
  STRIPE_SECRET_KEY?: string;
  /** Signing secret of the Stripe webhook endpoint (`whsec_…`), for POST /v1/webhooks/stripe. */
  STRIPE_WEBHOOK_SECRET?: string;
  /** Local only: base URL of the Stripe API (the fake, e.g. `http://127.0.0.1:12111`); default api.stripe.com. */
  STRIPE_API_URL?: string;
  /** Public origin of the console, where Stripe sends the browser back (default: the request's origin). */
  CONSOLE_ORIGIN?: string;
  /** Operator alerts (docs/operations.md): Slack-compatible incoming-webhook URL; unset, alerts are log lines only. */
  ALERT_WEBHOOK_URL?: string;
  /** Minutes a refund intent may stay unsettled before it alerts (default 15). */
  ALERT_REFUND_INTENT_MINUTES?: string;
  /** Seconds the GPU pool must be empty or all 503 before it alerts (default 60). */
  ALERT_POOL_DOWN_SECONDS?: string;
  /** Seconds of decides over which the 5xx share is taken (default 300). */
  ALERT_5XX_WINDOW_SECONDS?: string;
  /** The canary's API key (an operator account's test key); unset, no canary runs. */
  CANARY_API_KEY?: string;
  /** Bound on one canary decide in ms (default 20000); slower alerts. */
  CANARY_LATENCY_MS?: string;
  /** Test tiers only: "1" answers 500 when a route raises an error code its declaration does not list. */
  STRICT_ERROR_DECLARATIONS?: string;
}
