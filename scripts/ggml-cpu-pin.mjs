#!/usr/bin/env node
// Pins ggml's CPU kernels to one variant on x86-64 (docs/decisions.md, "Numerics classes").
//
// node-llama-cpp's prebuilt packages ship one `libggml-cpu-<variant>.so` per x86-64 feature level beside the
// binding, and llama.cpp's loader (`ggml_backend_load_best`) loads the best one the CPU supports; there is no
// option to choose. Different variants give different floating-point results, so two machines of one kind
// answered the same request with different bytes. This moves every other variant out of the folder the loader
// scans (into `<bins>/<platform>.unpinned-cpu/`, kept for benchmarks), so every x86-64 machine that can run the
// pinned variant loads exactly it. A CPU that cannot run it keeps every variant (and reports its own class).
// Idempotent; `--restore` puts the other variants back.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The variant every CPU worker loads: AVX2 (`haswell`), run by every x86-64 machine of our kind. */
export const PINNED_CPU_VARIANT = "haswell";

/**
 * CPU features each x86-64 variant needs, in /proc/cpuinfo's names (ggml/src/CMakeLists.txt of the llama.cpp
 * release node-llama-cpp 3.22.1 bundles: `ggml_add_cpu_backend_variant(haswell SSE42 AVX F16C FMA AVX2 BMI2)`).
 */
export const VARIANT_FEATURES = {
  x64: [],
  sse42: ["sse4_2"],
  sandybridge: ["sse4_2", "avx"],
  ivybridge: ["sse4_2", "avx", "f16c"],
  piledriver: ["sse4_2", "avx", "f16c", "fma"],
  haswell: ["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2"],
  skylakex: ["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2", "avx512f"],
  cannonlake: ["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2", "avx512f", "avx512vbmi"],
  cascadelake: ["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2", "avx512f", "avx512_vnni"],
  icelake: ["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2", "avx512f", "avx512vbmi", "avx512_vnni"],
  cooperlake: ["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2", "avx512f", "avx512_vnni", "avx512_bf16"],
  zen4: [
    "sse4_2",
    "avx",
    "f16c",
    "fma",
    "avx2",
    "bmi2",
    "avx512f",
    "avx512vbmi",
    "avx512_vnni",
    "avx512_bf16",
  ],
  alderlake: ["sse4_2", "avx", "f16c", "fma", "avx2", "bmi2", "avx_vnni"],
  sapphirerapids: [
    "sse4_2",
    "avx",
    "f16c",
    "fma",
    "avx2",
    "bmi2",
    "avx512f",
    "avx512vbmi",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
    "amx_int8",
  ],
};

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const VARIANT_FILE = /^libggml-cpu-(.+)\.so$/;

/** The CPU's feature flags (/proc/cpuinfo), or null where there is none to read. */
export function cpuFlags() {
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((l) => l.startsWith("flags"));
    return new Set(line?.split(":")[1]?.trim().split(/\s+/) ?? []);
  } catch {
    return null;
  }
}

/** The x86-64 variants this CPU can run, in the order above. */
export function runnableVariants(flags = cpuFlags()) {
  if (!flags) return [];
  return Object.entries(VARIANT_FEATURES)
    .filter(([, need]) => need.every((f) => flags.has(f)))
    .map(([variant]) => variant);
}

/** Every prebuilt node-llama-cpp binary folder that holds x86-64 CPU variants (CPU, CUDA, Vulkan builds). */
export function variantFolders(root = ROOT) {
  const scope = join(root, "node_modules", "@node-llama-cpp");
  if (!existsSync(scope)) return [];
  const out = [];
  for (const pkg of readdirSync(scope)) {
    const bins = join(scope, pkg, "bins");
    if (!existsSync(bins)) continue;
    for (const platform of readdirSync(bins)) {
      const folder = join(bins, platform);
      if (platform.startsWith("linux-x64") && !platform.includes(".") && existsSync(folder))
        out.push({ folder, parked: `${folder}.unpinned-cpu` });
    }
  }
  return out;
}

const variantsIn = (folder) =>
  existsSync(folder)
    ? readdirSync(folder)
        .map((f) => VARIANT_FILE.exec(f)?.[1])
        .filter(Boolean)
    : [];

/** Moves each folder's variants other than `variant` aside (or all back with `variant` null). */
function arrange(variant, root) {
  const move = (from, to, v) => {
    mkdirSync(to, { recursive: true });
    renameSync(join(from, `libggml-cpu-${v}.so`), join(to, `libggml-cpu-${v}.so`));
  };
  for (const { folder, parked } of variantFolders(root)) {
    for (const v of variantsIn(folder)) if (variant && v !== variant) move(folder, parked, v);
    for (const v of variantsIn(parked)) if (!variant || v === variant) move(parked, folder, v);
  }
}

/**
 * Pins the CPU kernels to PINNED_CPU_VARIANT when this is an x86-64 Linux machine that can run it; answers
 * what was done. Elsewhere (ARM, macOS, a CPU without AVX2) nothing moves and the loader picks as before.
 */
export function pinCpuVariant({ root = ROOT, flags = cpuFlags() } = {}) {
  if (process.platform !== "linux" || process.arch !== "x64")
    return { pinned: null, why: `${process.platform}-${process.arch} has no x86-64 CPU variants to pin` };
  if (!runnableVariants(flags).includes(PINNED_CPU_VARIANT)) {
    arrange(null, root);
    return {
      pinned: null,
      why: `this CPU cannot run the ${PINNED_CPU_VARIANT} variant (AVX2, FMA, F16C, BMI2)`,
    };
  }
  arrange(PINNED_CPU_VARIANT, root);
  return { pinned: PINNED_CPU_VARIANT, folders: variantFolders(root).length };
}

/** Puts every variant back (the loader picks the best again). */
export function unpinCpuVariant({ root = ROOT } = {}) {
  arrange(null, root);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--restore")) {
    unpinCpuVariant();
    console.log("ggml cpu: every variant restored (the loader picks the best one this CPU supports)");
  } else {
    const r = pinCpuVariant();
    console.log(
      r.pinned
        ? `ggml cpu: pinned to ${r.pinned} in ${r.folders} binary folder(s)`
        : `ggml cpu: not pinned: ${r.why}`,
    );
  }
}
