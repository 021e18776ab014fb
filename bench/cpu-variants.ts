/**
 * `npm run bench:cpu-variants`: what pinning ggml's CPU kernels costs (docs/decisions.md, "Numerics classes").
 * For every x86-64 variant this CPU can run, a throw-away "lab" folder links the project's node_modules but
 * gives `@node-llama-cpp/linux-x64` a binding folder with that one variant; a child process run with
 * `--preserve-symlinks` loads it, measures prefill on the default model and fingerprints one next-token
 * distribution. The project's own node_modules are not touched. Ratios are against the pinned variant, measured
 * in the same run. The model is the default alias's weights (`BENCH_MODEL=svc-1.4.0` measures another version's).
 *
 * Usage: npm run bench:cpu-variants -- [repeats] [variant,variant,…]
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { scorerGroups } from "../gpu-worker/src/model-files";
import { ALIASES } from "../schema/models";
// @ts-expect-error: plain ESM script without types
import { PINNED_CPU_VARIANT, runnableVariants } from "../scripts/ggml-cpu-pin.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const PKG = join(ROOT, "node_modules", "@node-llama-cpp", "linux-x64");
const BINS = join(PKG, "bins", "linux-x64");
const LENGTHS = [64, 512];
/** Prefill is timed with the workers' default, 1 thread; both 1 and 2 threads are fingerprinted. */
const THREADS = [1];
const REPEATS = Number(process.argv[2] ?? 3);
/** Variants to compare with the pinned one (default: every other one this CPU runs; `x64` is scalar and slow). */
const ONLY = process.argv[3]?.split(",");
const VERSION = process.env.BENCH_MODEL ?? (ALIASES["svc-1"] as string);
const MODEL_PATH = (scorerGroups([VERSION])[0] as { path: string }).path;

/** A lab whose only ggml CPU variant is `variant` (taken from the binding folder or where the pin parked it). */
function lab(variant: string): string {
  const dir = mkdtempSync(join(tmpdir(), `svc-variant-${variant}-`));
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, "node_modules")))
    if (name !== "@node-llama-cpp") symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
  const pkg = join(modules, "@node-llama-cpp", "linux-x64");
  const bins = join(pkg, "bins", "linux-x64");
  mkdirSync(bins, { recursive: true });
  cpSync(join(PKG, "package.json"), join(pkg, "package.json"));
  symlinkSync(join(PKG, "dist"), join(pkg, "dist"));
  for (const f of readdirSync(BINS))
    if (!f.startsWith("libggml-cpu-")) symlinkSync(join(BINS, f), join(bins, f));
  const lib = `libggml-cpu-${variant}.so`;
  const from = [BINS, `${BINS}.unpinned-cpu`].find((d) => existsSync(join(d, lib)));
  if (!from) throw new Error(`${lib} is neither in ${BINS} nor parked beside it`);
  symlinkSync(join(from, lib), join(bins, lib));
  cpSync(join(ROOT, "bench", "support", "cpu-variant-probe.mjs"), join(dir, "probe.mjs"));
  return dir;
}

interface Probe {
  variant: string;
  prefill: Record<string, number>;
  fingerprint: Record<string, string>;
}

function probe(variant: string): Probe {
  const dir = lab(variant);
  try {
    const out = execFileSync(
      process.execPath,
      [
        "--preserve-symlinks",
        "--preserve-symlinks-main",
        join(dir, "probe.mjs"),
        MODEL_PATH,
        LENGTHS.join(","),
        THREADS.join(","),
        String(REPEATS),
      ],
      { cwd: dir, encoding: "utf8" },
    );
    return JSON.parse(out.trim().split("\n").at(-1) as string) as Probe;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const variants = (runnableVariants() as string[]).filter(
  (v) => v !== PINNED_CPU_VARIANT && (!ONLY || ONLY.includes(v)),
);
const pinned = probe(PINNED_CPU_VARIANT);
const rows = [pinned, ...variants.map(probe)];
console.log(
  `${cpus().length} × ${cpus()[0]?.model}; ${VERSION} (${MODEL_PATH}); variants: ${[PINNED_CPU_VARIANT, ...variants].join(", ")}`,
);
console.log(
  `| variant loaded | ${THREADS.flatMap((t) => LENGTHS.map((n) => `${n} tok, t${t}: tok/s (× pinned)`)).join(" | ")} | fingerprint t1 | fingerprint t2 |`,
);
console.log(`|---|${THREADS.flatMap(() => LENGTHS.map(() => "---")).join("|")}|---|---|`);
for (const r of rows) {
  const cells = THREADS.flatMap((t) =>
    LENGTHS.map((n) => {
      const k = `${n}@t${t}`;
      const v = r.prefill[k] as number;
      return `${v} (${(v / (pinned.prefill[k] as number)).toFixed(2)})`;
    }),
  );
  console.log(
    `| ${r.variant}${r === pinned ? " (pinned)" : ""} | ${cells.join(" | ")} | ${r.fingerprint.t1} | ${r.fingerprint.t2} |`,
  );
}
