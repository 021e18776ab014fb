import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Llama } from "node-llama-cpp";

/**
 * What a worker contributes to the numbers (docs/decisions.md, "Numerics classes"): the backend and, on CPU,
 * the ggml kernel variant actually loaded (or the GPU devices), the thread count on CPU (it changes results:
 * ggml splits reductions by thread), and the node-llama-cpp build, which fixes the llama.cpp release. Two
 * workers of one class compute byte-identical answers for one exact version; replays go only to the class
 * that computed the original.
 */
export interface NumericsClass {
  /** Short id, e.g. `cpu-haswell-t1-nlc3.22.1`. */
  id: string;
  backend: "cpu" | "cuda" | "cuda-ext" | "vulkan" | "metal";
  /** CPU: the ggml variant (`haswell`, `zen4`, …, or `unknown`); GPU: the device names. */
  device: string;
  /** CPU threads per evaluation; part of the id on CPU only. */
  threads: number;
  /** node-llama-cpp version, `-local` appended for a binary built on the machine. */
  build: string;
}

/** node-llama-cpp's version (its package exports no `package.json`: found from its entry point). */
function nodeLlamaCppVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve("node-llama-cpp"));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

/** Lower-case letters, digits and dots; everything else one `-`. */
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, "-")
    .replace(/^-|-$/g, "");

/** The libraries this process has mapped (Linux); empty elsewhere. */
function mappedLibraries(): string[] {
  try {
    return readFileSync("/proc/self/maps", "utf8")
      .split("\n")
      .map((l) => l.slice(l.indexOf("/")))
      .filter((p) => p.endsWith(".so") || p.endsWith(".node"));
  } catch {
    return [];
  }
}

/** The ggml CPU variant the loader kept (`libggml-cpu-<variant>.so`), or `unknown`. */
export function loadedCpuVariant(libraries = mappedLibraries()): string {
  for (const p of libraries) {
    const m = /libggml-cpu-([a-z0-9._]+)\.so$/.exec(p);
    if (m) return m[1] as string;
  }
  return "unknown";
}

/** The class of the numbers `llama` computes with `threads` CPU threads. */
export async function numericsClassOf(llama: Llama, threads: number): Promise<NumericsClass> {
  const build = `nlc${nodeLlamaCppVersion()}${llama.buildType === "localBuild" ? "-local" : ""}`;
  const libraries = mappedLibraries();
  if (llama.gpu === false) {
    const device = loadedCpuVariant(libraries);
    return { id: `cpu-${device}-t${threads}-${build}`, backend: "cpu", device, threads, build };
  }
  const backend =
    llama.gpu === "cuda" && libraries.some((p) => p.includes("linux-x64-cuda-ext")) ? "cuda-ext" : llama.gpu;
  const device = slug((await llama.getGpuDeviceNames()).join("+")) || "unknown";
  return { id: `${backend}-${device}-${build}`, backend, device, threads, build };
}
