import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file under a stack's data folder (`.local/admin-token`) that keeps its operator token across restarts. */
export const ADMIN_TOKEN_FILE = "admin-token";

/** The Worker refuses an ADMIN_TOKEN shorter than this (workers/middleware/env-check.ts). */
const MIN_LENGTH = 16;

/**
 * The local stack's operator token (`ADMIN_TOKEN`, for `/internal/*`): the environment's when set; else, with a
 * data folder, the one kept in `<dataDir>/admin-token` (made once, random, owner-only), so the runbook's commands
 * keep working across `npm start`s; else a random one for this start. Never a fixed value.
 */
export function localAdminToken(dataDir: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  if (!dataDir) return freshToken();
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  const kept = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  if (kept.length >= MIN_LENGTH && !/\s/.test(kept)) return kept;
  const token = freshToken();
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

function freshToken(): string {
  return randomBytes(32).toString("hex");
}
