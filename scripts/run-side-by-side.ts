/**
 * Runs lanes of commands side by side (issue 54: `npm test` in 20 minutes on 2 cores). Each lane is a list of
 * shell commands run one after another, stopping at the lane's first failure; the lanes run at the same time.
 * The first lane's output goes straight to the terminal (its reporter stays live); every other lane's output is
 * kept and printed whole when each of its commands ends, so no two vitest reports interleave line by line.
 * Exits 1 if any command of any lane failed, after every lane has finished (no test process is left behind).
 *
 *   tsx scripts/run-side-by-side.ts "<cmd>" "<cmd>" -- "<cmd>" ...   lanes separated by `--`
 *   tsx scripts/run-side-by-side.ts --preset test                    npm test's tiers (TEST_LANES below)
 *
 * Why side by side: the integration tier runs one file at a time and its real-model files use one CPU thread,
 * and vitest runs the unit and worker files one at a time on 2 cores; each lane alone leaves a core mostly idle.
 */
import { spawn } from "node:child_process";

/**
 * `npm test`'s tiers after lint, floors and types: the integration tier (the longest) beside the unit and
 * worker tiers followed by the browser tier. Their stacks are separate (each vitest run starts its own).
 */
export const TEST_LANES: string[][] = [
  ["npx vitest run --project integration"],
  ["npx vitest run --project unit --project worker", "npx vitest run --project browser"],
];

/** Splits argv at `--` into lanes; `--preset test` gives TEST_LANES. */
export function parseLanes(argv: string[]): string[][] {
  if (argv[0] === "--preset") {
    if (argv[1] === "test") return TEST_LANES;
    throw new Error(`unknown preset ${argv[1] ?? "(none)"}; known: test`);
  }
  const lanes: string[][] = [[]];
  for (const a of argv) {
    if (a === "--") lanes.push([]);
    else lanes.at(-1)!.push(a);
  }
  return lanes.filter((l) => l.length > 0);
}

interface Ran {
  command: string;
  code: number;
  seconds: number;
}

/** Runs one command with `sh -c`; `live` inherits the terminal, else the output is returned whole. */
function run(command: string, live: boolean): Promise<Ran & { output: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], { stdio: live ? "inherit" : ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout?.on("data", (d) => {
      output += String(d);
    });
    child.stderr?.on("data", (d) => {
      output += String(d);
    });
    child.on("close", (code, signal) =>
      resolve({
        command,
        code: code ?? (signal ? 128 : 1),
        seconds: (performance.now() - t0) / 1000,
        output,
      }),
    );
  });
}

async function runLane(lane: string[], live: boolean): Promise<Ran[]> {
  const done: Ran[] = [];
  for (const command of lane) {
    const r = await run(command, live);
    if (!live && r.output.trim() !== "") {
      process.stdout.write(`\n── ${command} (ran beside the first lane; its output, whole) ──\n`);
      process.stdout.write(r.output.endsWith("\n") ? r.output : `${r.output}\n`);
      process.stdout.write(`── end of ${command} ──\n\n`);
    }
    done.push(r);
    if (r.code !== 0) break;
  }
  return done;
}

async function main(): Promise<void> {
  const lanes = parseLanes(process.argv.slice(2));
  if (lanes.length === 0) throw new Error("no commands given");
  const t0 = performance.now();
  const results = (await Promise.all(lanes.map((lane, i) => runLane(lane, i === 0)))).flat();
  console.log("side by side:");
  for (const r of results)
    console.log(`  ${r.code === 0 ? "ok  " : "FAIL"} ${r.seconds.toFixed(0)} s  ${r.command}`);
  console.log(`  all lanes: ${((performance.now() - t0) / 1000).toFixed(0)} s wall`);
  const skipped = lanes.flat().length - results.length;
  if (skipped > 0) console.log(`  ${skipped} command(s) not run: an earlier command of their lane failed`);
  process.exitCode = results.every((r) => r.code === 0) && skipped === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
