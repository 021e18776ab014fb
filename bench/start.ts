// Local stack start-up: time from launching `npm start` (scripts/start.ts) to the first answered requests,
// cold (empty data dir) and warm (restart on the same data), and the programmatic startStack used by tests.
// Usage: npx tsx bench/start.ts [--runs N] [--no-gpu]. Prints a Markdown table.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../scripts/stack/free-port";
import { startStack } from "../scripts/stack/start-stack";

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] || 1) || 1;
const gpu = !args.includes("--no-gpu");

interface Timing {
  livez: number;
  ready: number;
  key: number;
  exit: number;
}

async function untilOk(url: string, init: RequestInit | undefined, t0: number): Promise<number> {
  for (;;) {
    const ok = await fetch(url, init)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function runNpmStart(dataDir: string): Promise<Timing> {
  const port = await freePort();
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    env: { ...process.env, PORT: String(port), SVC_DATA_DIR: dataDir, ...(gpu ? {} : { SVC_NO_GPU: "1" }) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      out += String(d);
      if (out.includes("Ctrl-C stops everything")) resolve(performance.now() - t0);
    });
    child.once("exit", (code) => reject(new Error(`npm start exited ${code}:\n${out}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const livez = await untilOk(`${base}/livez`, undefined, t0);
  const readyAt = await ready;
  const demo = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8"));
  const key = await untilOk(`${base}/v1/key`, { headers: { authorization: `Bearer ${demo.test_key}` } }, t0);
  const t1 = performance.now();
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGINT");
  await exited;
  return { livez, ready: readyAt, key, exit: performance.now() - t1 };
}

async function runProgrammatic(): Promise<Timing> {
  const t0 = performance.now();
  const stack = await startStack({ gpu: false });
  const ready = performance.now() - t0;
  const livez = await untilOk(`${stack.baseUrl}/livez`, undefined, t0);
  const key = await untilOk(
    `${stack.baseUrl}/v1/key`,
    { headers: { authorization: `Bearer ${stack.demo!.test_key}` } },
    t0,
  );
  const t1 = performance.now();
  await stack.stop();
  return { livez, ready, key, exit: performance.now() - t1 };
}

const rows: string[] = [];
const fmt = (ms: number) => (ms / 1000).toFixed(1);
const row = (name: string, t: Timing) =>
  rows.push(`| ${name} | ${fmt(t.livez)} | ${fmt(t.ready)} | ${fmt(t.key)} | ${fmt(t.exit)} |`);
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-start-"));
  try {
    row(`npm start, cold (empty data dir)${gpu ? ", with GPU worker" : ""}`, await runNpmStart(dir));
    row(`npm start, warm restart (same data)${gpu ? ", with GPU worker" : ""}`, await runNpmStart(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  row("startStack({ gpu: false }), in memory (tests)", await runProgrammatic());
}
console.log(
  `machine: nproc ${cpus().length}, node ${process.version}, load avg ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log(
  "| case | first 200 /livez (s) | ready line (s) | first 200 GET /v1/key (s) | stop after SIGINT (s) |",
);
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);
