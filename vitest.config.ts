import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// The worker and integration tiers share one throw-away local stack per run (test/setup/global-stack.ts);
// the worker tier's Miniflare bindings point at it.
const globalSetup = ["./test/setup/global-stack.ts"];
// The Worker imports the console's generated bundle (scripts/build-console.ts): built before it is bundled.
const workerSetup = ["./scripts/build-console.ts", ...globalSetup];

export default defineConfig({
  test: {
    // Every request writes a JSON request line (issue 43); the terminal keeps the other log lines.
    onConsoleLog: (log) => (log.includes('"event":"request"') ? false : undefined),
    projects: [
      {
        // CI has 2 shared cores: property tests that take ~1 s idle can take several under load.
        // Issue 54: one process for the tier's files, not a fresh one per file (110 → 60 CPU s for the tier; the
        // files restore what they stub: timers, globalThis.fetch).
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          isolate: false,
        },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => {
            const stack = inject("stack");
            return {
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  ENVIRONMENT: "test",
                  DATABASE_URL: stack.DATABASE_URL,
                  NEON_WS_PROXY: stack.NEON_WS_PROXY,
                  NEON_HTTP_ENDPOINT: stack.NEON_HTTP_ENDPOINT,
                  UPSTASH_REDIS_REST_URL: stack.UPSTASH_REDIS_REST_URL,
                  UPSTASH_REDIS_REST_TOKEN: stack.UPSTASH_REDIS_REST_TOKEN,
                  STACK_CONTROL_URL: stack.STACK_CONTROL_URL,
                  CONSOLE_SECRET: "test-console-secret-0123456789abcdefghij",
                  STRIPE_SECRET_KEY: "sk_test_local_fake",
                  STRIPE_API_URL: stack.STRIPE_API_URL,
                  STRIPE_WEBHOOK_SECRET: stack.STRIPE_WEBHOOK_SECRET,
                  ADMIN_TOKEN: "test-admin-token",
                  GPU_SIGNING_SECRET: "test-gpu-signing-secret",
                  STRICT_ERROR_DECLARATIONS: "1",
                },
              },
            };
          }),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          // Isolated (a Miniflare per file, ~4 CPU s each) on purpose: with one workerd for every file (issue 54
          // tried `isolate: false`) an earlier file's Durable Object alarms (batch and evaluation runners) log into
          // a later file's runner ("Cannot perform I/O on behalf of a different Durable Object") and the run stalls.
          globalSetup: workerSetup,
          testTimeout: 30_000,
        },
      },
      {
        // Slow lane: run on its own (`npm run test:slow`); CI runs it as a separate step.
        test: {
          name: "slow",
          include: ["test/slow/**/*.test.ts"],
          environment: "node",
          globalSetup,
          testTimeout: 900_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          globalSetup,
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        // Real Chromium (Debian's, or SVC_CHROMIUM) driven by playwright-core against a stack the test starts;
        // skipped, saying so, where no browser is installed (test/browser/chromium.ts).
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          globalSetup: ["./test/browser/report-browser.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
