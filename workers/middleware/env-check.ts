import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { isAllowedWorkerUrl } from "../../schema/signing";
import type { AppEnv } from "../context/app-env";
import type { Env } from "../env";

/** An unset variable may arrive as "" (wrangler vars, Miniflare bindings): treat it as absent. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" ? undefined : v), schema.optional());
const httpUrl = z.url({ protocol: /^https?$/ });
const commaSeparatedHttpUrls = z
  .string()
  .refine(
    (s) => s.split(",").every((u) => u.trim() === "" || httpUrl.safeParse(u.trim()).success),
    "every entry must be an http(s) URL",
  );
const gpuPoolUrls = commaSeparatedHttpUrls.refine(
  (s) => s.split(",").every((u) => u.trim() === "" || isAllowedWorkerUrl(u.trim())),
  "every entry must be https (http only on a loopback address)",
);

/** The Worker's variables, checked once per env object at the entry (bindings such as LEDGER are typed only). */
export const EnvVars = z.object({
  ENVIRONMENT: optional(z.string()),
  DATABASE_URL: optional(z.url({ protocol: /^postgres(ql)?$/ })),
  NEON_WS_PROXY: optional(z.string().regex(/^[^\s/]+(\/\S*)?$/, "host:port[/path]")),
  NEON_HTTP_ENDPOINT: optional(httpUrl),
  UPSTASH_REDIS_REST_URL: optional(httpUrl),
  UPSTASH_REDIS_REST_TOKEN: optional(z.string()),
  GPU_POOL_URLS: optional(gpuPoolUrls),
  GPU_REGISTRY_REFRESH_MS: optional(z.string().regex(/^[1-9]\d{2,5}$/, "milliseconds, 100 to 999999")),
  GPU_SIGNING_SECRET: optional(z.string().min(16, "at least 16 characters")),
  FALLBACK_BASE_URL: optional(httpUrl),
  FALLBACK_API_KEY: optional(z.string()),
  FALLBACK_DEPLOYMENT: optional(z.string()),
  ADMIN_TOKEN: optional(z.string().min(16, "at least 16 characters")),
  CONSOLE_SECRET: optional(z.string().min(32, "at least 32 characters")),
  EMAIL_API_URL: optional(httpUrl),
  EMAIL_API_KEY: optional(z.string()),
  EMAIL_FROM: optional(z.string()),
  IDP_ISSUER: optional(z.string()),
  IDP_JWKS_URL: optional(httpUrl),
  IDP_CLIENT_IDS: optional(z.string()),
  IDP_AUTHORIZE_URL: optional(httpUrl),
  IDP_TOKEN_URL: optional(httpUrl),
  IDP_CLIENT_SECRET: optional(z.string()),
  STRIPE_SECRET_KEY: optional(z.string().regex(/^(sk|rk)_(test|live)_\S+$/, "a Stripe secret key")),
  STRIPE_WEBHOOK_SECRET: optional(z.string().regex(/^whsec_\S+$/, "a Stripe webhook signing secret")),
  STRIPE_API_URL: optional(httpUrl),
  CONSOLE_ORIGIN: optional(httpUrl),
  STRICT_ERROR_DECLARATIONS: optional(z.enum(["0", "1"])),
  ALERT_WEBHOOK_URL: optional(httpUrl),
  ALERT_REFUND_INTENT_MINUTES: optional(z.string().regex(/^\d{1,5}$/, "whole minutes")),
  ALERT_POOL_DOWN_SECONDS: optional(z.string().regex(/^\d{1,5}$/, "whole seconds")),
  ALERT_5XX_WINDOW_SECONDS: optional(z.string().regex(/^[1-9]\d{0,4}$/, "whole seconds, at least 1")),
  CANARY_API_KEY: optional(z.string()),
  CANARY_LATENCY_MS: optional(z.string().regex(/^[1-9]\d{0,6}$/, "milliseconds")),
});

const checked = new WeakMap<object, string | null>();

/** `null` when `env` is valid, else one line naming each bad variable and why (never its value). */
export function envProblems(env: Env): string | null {
  let problems = checked.get(env);
  if (problems === undefined) {
    const res = EnvVars.safeParse(env);
    problems = res.success
      ? null
      : res.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    checked.set(env, problems);
  }
  return problems;
}

/** Refuses to serve on a misconfigured Worker: every request answers 500 `internal_error` and logs why. */
export function envCheck(): MiddlewareHandler<AppEnv> {
  return async function envCheck(c, next) {
    const problems = envProblems(c.env);
    if (problems) throw new Error(`invalid Worker configuration: ${problems}`);
    await next();
  };
}
