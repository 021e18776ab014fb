import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** sha256 of the default svc-1 file (SmolLM2-135M-Instruct Q4_1); mirrors scripts/model-pull.mjs. */
export const DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf";
export const DEFAULT_MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where `npm run model:pull` puts the weights (same rule as scripts/model-pull.mjs). */
export function modelCacheDir(env = process.env): string {
  return env.SVC_MODEL_CACHE ?? join(ROOT, ".cache", "models");
}

/** Where `npm run model:pull` puts the default file, unless `SVC_MODEL_PATH` points elsewhere. */
export function defaultModelPath(env = process.env): string {
  return env.SVC_MODEL_PATH || join(modelCacheDir(env), DEFAULT_MODEL_FILE);
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Thrown when the worker must not start; `message` names the fix. */
export class ModelFileError extends Error {}

/**
 * Refuses a missing file or one whose sha256 differs from `expected` (default: the svc-1 default file's hash
 * when the name matches, else `SVC_MODEL_SHA256`). A verified hash is remembered in `<file>.sha256-stamp`
 * keyed by size and mtime, so later starts skip the ~100 MB read; any change to the file invalidates it.
 */
export async function verifyModelFile(
  path: string,
  expected?: string,
): Promise<{ sha256: string; cached: boolean }> {
  const fix = "Fix: run `npm run model:pull` (or set SVC_MODEL_PATH to a verified copy).";
  if (!existsSync(path)) throw new ModelFileError(`model file not found: ${path}. ${fix}`);
  const want =
    expected ||
    process.env.SVC_MODEL_SHA256 ||
    (basename(realpathSync(path)) === DEFAULT_MODEL_FILE ? DEFAULT_MODEL_SHA256 : undefined);
  if (!want)
    throw new ModelFileError(
      `no sha256 known for ${path}. Fix: set SVC_MODEL_SHA256 to the file's published hash.`,
    );
  const st = statSync(path);
  const stampPath = `${path}.sha256-stamp`;
  const stamp = { size: st.size, mtimeMs: st.mtimeMs, sha256: want };
  try {
    const old = JSON.parse(readFileSync(stampPath, "utf8"));
    if (old.size === stamp.size && old.mtimeMs === stamp.mtimeMs && old.sha256 === want)
      return { sha256: want, cached: true };
  } catch {
    // no stamp yet
  }
  const got = await sha256File(path);
  if (got !== want)
    throw new ModelFileError(`model file ${path} has sha256 ${got}, expected ${want}. ${fix}`);
  try {
    writeFileSync(stampPath, JSON.stringify(stamp));
  } catch {
    // read-only mount: verify on every start
  }
  return { sha256: got, cached: false };
}
