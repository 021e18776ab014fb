import { neon, neonConfig } from "@neondatabase/serverless";
import type { Env } from "../env";

// Temporary bridge until the stack's workers/stores/db.ts lands; same env contract (DATABASE_URL,
// NEON_HTTP_ENDPOINT for the local HTTP SQL bridge).
/** Neon HTTP query function for the env's database. */
export function getSql(env: Env) {
  if (!env.DATABASE_URL) throw new Error("DATABASE_URL is not set");
  const endpoint = env.NEON_HTTP_ENDPOINT;
  if (endpoint) neonConfig.fetchEndpoint = () => endpoint;
  return neon(env.DATABASE_URL);
}
