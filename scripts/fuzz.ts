// npm run fuzz [-- --count N --seed S]: N generated request bodies (default 1,000,000) through the strict
// parser and the validator (every pure step of POST /v1/decide), each answer judged against the spec's
// catalogue and JSON.parse. Prints progress to stderr and the report as JSON; exits 1 on any failure.
import { arch, cpus, hostname, platform } from "node:os";
import { parseArgs } from "node:util";
import { fuzzDecide } from "./fuzz/run";

const { values } = parseArgs({
  options: { count: { type: "string", default: "1000000" }, seed: { type: "string", default: "20261123" } },
});
const count = Number(values.count);
const seed = Number(values.seed);
let last = 0;
const report = fuzzDecide({
  count,
  seed,
  batch: 10_000,
  onBatch: (r) => {
    if (r.bodies - last < 100_000 && r.bodies < count) return;
    last = r.bodies;
    process.stderr.write(
      `fuzz: ${r.bodies} bodies, ${(r.ms / 1000).toFixed(0)} s, ${r.failureCount} failures\n`,
    );
  },
});
const machine = `${platform()} ${arch()}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, node ${process.version}, ${hostname()}`;
console.log(JSON.stringify({ date: new Date().toISOString(), machine, ...report }, null, 2));
process.exit(report.failureCount === 0 ? 0 : 1);
