/**
 * Table of the needle runs (`needle.ts`) from the cache: per RoPE config and state length, pick and check
 * accuracy and mean P(correct), raw (softmax of the label scores) and with `cal-20261123-0`'s map (contextual).
 *   tsx gpu-worker/eval/long-context/needle-report.ts [--configs none,yarn]
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  applyCalibration,
  CALIBRATION_DIR,
  loadCalibration,
  softmax,
  subtractContentFree,
} from "../../src/calibration";
import { argmax } from "../metrics";
import { readNeedleRows } from "./needle";

export function needleTable(configs: string[]): string {
  const cal = loadCalibration(join(CALIBRATION_DIR, "cal-20261123-0.json"));
  const out = [
    "| RoPE | state tokens (mean) | sets | pick n | pick acc raw | pick acc `cal-20261123-0` | pick mean P(correct) raw | pick mean P(correct) cal | check n | check acc cal | check mean P(correct) cal | seconds per state |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  const f = (v: number) => v.toFixed(2);
  for (const config of configs) {
    const rows = readNeedleRows(config);
    for (const length of [...new Set(rows.map((r) => r.length))].sort((a, b) => a - b)) {
      const rs = rows.filter((r) => r.length === length);
      const items = rs.flatMap((r) => r.items);
      const stat = (type: "pick" | "check") => {
        const xs = items.filter((i) => i.question.type === type);
        const raw = xs.map((i) => softmax(i.scores));
        const calP = xs.map((i) =>
          applyCalibration(
            type,
            cal.types[type].contextual ? subtractContentFree(i.scores, i.free) : i.scores,
            i.tokens,
            cal,
          ),
        );
        const acc = (ps: number[][]) => ps.filter((p, k) => argmax(p) === xs[k]?.answer).length / xs.length;
        const mean = (ps: number[][]) =>
          ps.reduce((s, p, k) => s + (p[xs[k]?.answer as number] as number), 0) / xs.length;
        return { n: xs.length, accRaw: acc(raw), accCal: acc(calP), pRaw: mean(raw), pCal: mean(calP) };
      };
      const p = stat("pick");
      const c = stat("check");
      const tokens = rs.reduce((s, r) => s + r.stateTokens, 0) / rs.length;
      const secs = rs.reduce((s, r) => s + r.seconds, 0) / rs.length;
      out.push(
        `| ${config} | ${Math.round(tokens)} | ${rs.length} | ${p.n} | ${f(p.accRaw)} | ${f(p.accCal)} | ${f(p.pRaw)} | ${f(p.pCal)} | ${c.n} | ${f(c.accCal)} | ${f(c.pCal)} | ${secs.toFixed(0)} |`,
      );
    }
  }
  return out.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--configs");
  console.log(needleTable(i > 0 ? (process.argv[i + 1] as string).split(",") : ["none", "yarn", "linear"]));
}
