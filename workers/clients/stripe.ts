import Stripe from "stripe";
import type { Env } from "../env";

/** The Stripe settings of an env: the secret key, the webhook signing secret and, locally, the API address. */
export type StripeEnv = Pick<Env, "STRIPE_SECRET_KEY" | "STRIPE_WEBHOOK_SECRET" | "STRIPE_API_URL">;

/** Thrown when Stripe is not configured (the console answers 503 `maintenance`, nothing changed). */
export class StripeNotConfigured extends Error {
  constructor() {
    super("STRIPE_SECRET_KEY is not set");
  }
}

/**
 * The real `stripe` SDK over `fetch` (Workers have no Node http). `STRIPE_API_URL` (e.g. the local fake,
 * `http://127.0.0.1:12111`) replaces api.stripe.com's host, port and protocol. Built once per isolate in
 * services.ts; the key is read from the env, never logged. `null` when no key is configured.
 */
export function stripeClient(env: StripeEnv): Stripe | null {
  if (!env.STRIPE_SECRET_KEY) return null;
  const api = env.STRIPE_API_URL ? new URL(env.STRIPE_API_URL) : undefined;
  return new Stripe(env.STRIPE_SECRET_KEY, {
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 1,
    timeout: 10_000,
    ...(api
      ? {
          host: api.hostname,
          port: api.port || (api.protocol === "https:" ? 443 : 80),
          protocol: api.protocol === "https:" ? "https" : "http",
        }
      : {}),
  });
}
