/** What `test/setup/global-stack.ts` provides to tests: `inject("stack")`. */
export interface StackProvided {
  DATABASE_URL: string;
  NEON_WS_PROXY: string;
  NEON_HTTP_ENDPOINT: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  /** `POST {url}/upstash/stop` and `/upstash/start` stop/restart the Upstash bridge (same port). Serial tests only. */
  STACK_CONTROL_URL: string;
  /** The fake Stripe of the run (scripts/stack/fake-stripe.ts): API, pay pages and `/__fake/…` controls. */
  STRIPE_API_URL: string;
  STRIPE_WEBHOOK_SECRET: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    stack: StackProvided;
  }
}
