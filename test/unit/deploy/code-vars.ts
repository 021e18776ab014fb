// The variables the code reads, found in its sources (test helper of the deploy checks).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { EnvVars } from "../../../workers/middleware/env-check";

export const ROOT = join(import.meta.dirname, "..", "..", "..");

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) return name === "dist" ? [] : files(rel);
    return /\.(ts|mjs)$/.test(name) ? [rel] : [];
  });
}

const READS = [
  /\b(?:process\.)?env\.([A-Z][A-Z0-9_]+)\b/g,
  /\benv\[\s*"([A-Z][A-Z0-9_]+)"\s*\]/g,
  /\bint\(\s*"([A-Z][A-Z0-9_]+)"/g,
];

/** Upper-case names read as `env.X`, `process.env.X`, `env["X"]` or `int("X", …)` in these files. */
export function readsIn(paths: string[]): Set<string> {
  const out = new Set<string>();
  for (const p of paths)
    for (const re of READS) for (const m of readFileSync(join(ROOT, p), "utf8").matchAll(re)) out.add(m[1]!);
  return out;
}

/** The edge Worker: every validated variable, every binding and whatever its sources read. */
export function edgeVars(): Set<string> {
  const envTs = readFileSync(join(ROOT, "workers/env.ts"), "utf8");
  const declared = [...envTs.matchAll(/^ {2}([A-Z][A-Z0-9_]+)\??:/gm)].map((m) => m[1]!);
  return new Set([...Object.keys(EnvVars.shape), ...declared, ...readsIn(files("workers"))]);
}

/** The GPU worker image: the worker's sources and the scripts the image runs (weights pull, kernel pin). */
export function gpuWorkerVars(): Set<string> {
  return readsIn([...files("gpu-worker/src"), "scripts/model-pull.mjs", "scripts/ggml-cpu-pin.mjs"]);
}

/** The operator scripts of docs/deploy.md. */
export function scriptVars(): Set<string> {
  return readsIn(["scripts/deploy-check.ts", "scripts/stripe-setup.ts"].filter((p) => exists(p)));
}

function exists(p: string): boolean {
  try {
    return statSync(join(ROOT, p)).isFile();
  } catch {
    return false;
  }
}
