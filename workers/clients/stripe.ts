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

/**
 * The addresses Stripe sends webhook events from (https://stripe.com/files/ips/ips_webhooks.json, 15 addresses
 * as of 2026-05; Stripe announces changes 7 days ahead on its api-announce list). A bad signature from one of
 * them means the signing secret no longer matches: what the `stripe_signature_failures` alert is for. Anyone
 * else's bad signature is noise an attacker can make at will (docs/decisions.md).
 */
export const STRIPE_WEBHOOK_IPS: readonly string[] = [
  "3.18.12.63",
  "3.69.109.8",
  "3.120.168.93",
  "3.130.192.231",
  "13.235.14.237",
  "13.235.122.149",
  "18.211.135.69",
  "35.154.171.200",
  "35.157.207.129",
  "52.15.183.38",
  "54.88.130.119",
  "54.88.130.237",
  "54.187.174.169",
  "54.187.205.235",
  "54.187.216.72",
];
