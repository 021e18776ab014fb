// npm run fuzz [-- --count N --seed S --shards K]: N generated request bodies (default 1,000,000) through the
// strict parser and the validator (every pure step of POST /v1/decide), each answer judged against the spec's
// catalogue and JSON.parse; and N/200 bodies, some nested thousands deep, through the handler of every route
// that takes a body (console ones included), in the parent process meanwhile. K processes (default 2) take
// consecutive batches of the same seeded sequence, so the bodies are the same whatever K is. Progress goes to
// stderr, the report (JSON) to stdout; exits 1 on any failure.
import { fork } from "node:child_process";
import { arch, cpus, platform } from "node:os";
import { parseArgs } from "node:util";
import { type FuzzReport, fuzzDecide, fuzzRoutes, mergeReports } from "./fuzz/run";

const BATCH = 10_000;
const { values } = parseArgs({
  options: {
    count: { type: "string", default: "1000000" },
    seed: { type: "string", default: "20261123" },
    shards: { type: "string", default: "2" },
    "first-batch": { type: "string" },
  },
});
const count = Number(values.count);
const seed = Number(values.seed);

if (values["first-batch"] !== undefined) {
  // A shard: run, then hand the report to the parent.
  const report = fuzzDecide({
    count,
    seed,
    batch: BATCH,
    firstBatch: Number(values["first-batch"]),
    onBatch: (r) => {
      if (r.bodies % 100_000 === 0)
        process.stderr.write(
          `fuzz shard ${values["first-batch"]}: ${r.bodies} bodies, ${(r.ms / 1000).toFixed(0)} s, ${r.failureCount} failures\n`,
        );
    },
  });
  process.send?.(report);
} else {
  const shards = Math.max(1, Number(values.shards));
  const batches = Math.ceil(count / BATCH);
  const per = Math.ceil(batches / shards);
  const started = Date.now();
  const runs: Array<Promise<FuzzReport>> = [];
  for (let s = 0; s < shards && s * per < batches; s++) {
    const shardCount = Math.min(per * BATCH, count - s * per * BATCH);
    const args = ["--count", String(shardCount), "--seed", String(seed), "--first-batch", String(s * per)];
    const child = fork(process.argv[1]!, args, { execArgv: process.execArgv });
    runs.push(
      new Promise((resolve, reject) => {
        child.once("message", (r) => resolve(r as FuzzReport));
        child.once("exit", (code) => reject(new Error(`fuzz shard ${s} exited ${code} without a report`)));
      }),
    );
  }
  const routes = await fuzzRoutes({ count: Math.ceil(count / 200), seed });
  process.stderr.write(`fuzz routes: ${routes.bodies} bodies, ${(routes.ms / 1000).toFixed(0)} s\n`);
  const report = { ...mergeReports(await Promise.all(runs)), ms: Date.now() - started };
  const machine = `${platform()} ${arch()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, node ${process.version}`;
  console.log(
    JSON.stringify({ date: new Date().toISOString(), machine, shards, ...report, routes }, null, 2),
  );
  process.exit(report.failureCount + routes.failureCount === 0 ? 0 : 1);
}
