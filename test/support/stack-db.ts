// Node-side (integration tier) access to the test stack's Postgres through the real Neon driver.
import { inject } from "vitest";
import type { QueryFn } from "../../scripts/migrations";
import { configureNeonForNode, withNodeClient } from "../../scripts/stack/neon-node";

/** The provided stack (URLs of Postgres/bridges/Upstash) from `test/setup/global-stack.ts`. */
export function stack() {
  return inject("stack");
}

/** Configures the process-wide Neon driver (`neon()`, `Pool`) for the test stack and returns the DATABASE_URL. */
export function useStackNeon(): string {
  const s = stack();
  configureNeonForNode({ wsProxy: s.NEON_WS_PROXY, httpEndpoint: s.NEON_HTTP_ENDPOINT });
  return s.DATABASE_URL;
}

/** Runs `fn` with a QueryFn on one fresh connection to the test stack's Postgres. */
export function withStackDb<T>(fn: (query: QueryFn) => Promise<T>): Promise<T> {
  const s = stack();
  return withNodeClient(s.DATABASE_URL, { wsProxy: s.NEON_WS_PROXY }, (q) => fn(q));
}

/** Stops / restarts the Upstash bridge (same port): "Redis unavailable" tests. Serial tiers only. */
export async function upstashBridge(action: "stop" | "start"): Promise<void> {
  const res = await fetch(`${stack().STACK_CONTROL_URL}/upstash/${action}`, { method: "POST" });
  if (res.status !== 204) throw new Error(`stack control ${action}: ${res.status} ${await res.text()}`);
}

/**
 * The Postgres servers a driver-level test runs on: the stack's PGlite, and the server named by
 * REAL_DATABASE_URL when .ci/run sets it (PostgreSQL 15, reached through the same local Neon bridge).
 */
export function postgresTargets(): { name: string; url: () => string }[] {
  const real = process.env.REAL_DATABASE_URL;
  return [
    { name: "PGlite", url: () => useStackNeon() },
    ...(real
      ? [
          {
            name: "PostgreSQL server",
            url: () => {
              useStackNeon();
              return real;
            },
          },
        ]
      : []),
  ];
}
