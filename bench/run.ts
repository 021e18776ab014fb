/**
 * `npm run bench`: runs every edge-side benchmark in turn (the engine has its own, `npm run bench:engine`)
 * and writes their output, with the machine and the date, into the generated block at the end of
 * docs/benchmarks.md. Each benchmark reports ratios against a baseline measured in its own process.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

const BENCHES: Array<{ title: string; file: string; args: string[] }> = [
  { title: "Strict JSON parser vs JSON.parse", file: "bench/strict-json.ts", args: [] },
  {
    title: "Decide contract (validation + rendering + tokenization)",
    file: "bench/decide-contract.ts",
    args: [],
  },
  { title: "Tokenizer vs node-llama-cpp", file: "bench/tokenizer.ts", args: [] },
  { title: "Edge overhead vs bare Hono", file: "bench/edge.ts", args: [] },
  { title: "Where a decide's time goes", file: "bench/breakdown.ts", args: ["300", "2"] },
  { title: "Round trips per decide", file: "bench/round-trips.ts", args: [] },
  { title: "A calibration's fit on 1,000 items", file: "bench/calibration-fit.ts", args: [] },
  { title: "npm start, cold to first answer", file: "bench/start.ts", args: [] },
];

const START = "<!-- npm run bench: generated block start -->";
const END = "<!-- npm run bench: generated block end -->";

function machine(): string {
  const loadavg = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  return `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average at start ${loadavg}`;
}

const only = process.argv.slice(2);
const sections: string[] = [];
for (const b of BENCHES) {
  if (only.length && !only.some((o) => b.file.includes(o))) continue;
  console.log(`bench: ${b.file}`);
  const t0 = Date.now();
  const run = spawnSync(process.execPath, ["--import", "tsx", b.file, ...b.args], { encoding: "utf8" });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  const out = `${run.stdout}${run.status === 0 ? "" : `\n(exit ${run.status})\n${run.stderr}`}`.trim();
  process.stdout.write(`${out}\n`);
  sections.push(`### ${b.title} (\`${b.file}\`, ${seconds} s)\n\n\`\`\`\n${out}\n\`\`\``);
}

const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const block = [
  START,
  `## Latest \`npm run bench\`: ${new Date().toISOString()} (commit ${commit})`,
  "",
  `Machine: ${machine()}.`,
  "",
  ...sections.flatMap((s) => [s, ""]),
  END,
].join("\n");
const path = "docs/benchmarks.md";
const doc = readFileSync(path, "utf8");
const i = doc.indexOf(START);
const j = doc.indexOf(END);
writeFileSync(
  path,
  i >= 0 && j > i ? doc.slice(0, i) + block + doc.slice(j + END.length) : `${doc.trimEnd()}\n\n${block}\n`,
);
console.log(`bench: results written to ${path}`);
