/**
 * Table of the needle runs (`needle.ts`) from the cache: per RoPE config and state length, pick and check
 * accuracy and mean P(correct), raw (softmax of the label scores) and with `cal-20261123-0`'s map (contextual).
 *   tsx gpu-worker/eval/long-context/needle-report.ts [--configs none,yarn]
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  applyCalibration,
  applyPhrased,
  CALIBRATION_DIR,
  loadCalibration,
  softmax,
  subtractContentFree,
} from "../../src/calibration";
import { argmax } from "../metrics";
import { readNeedleRows } from "./needle";

export function needleTable(configs: string[]): string {
  const cal = loadCalibration(join(CALIBRATION_DIR, "cal-20261123-0.json"));
  // svc-1.2.0's pick map reads one phrasing, `ph-qa`: the same prompt as `plain-mix-2`'s pick, scored here.
  const cal1 = loadCalibration(join(CALIBRATION_DIR, "cal-20261123-1.json"));
  const out = [
    "| RoPE | state tokens (mean) | sets | pick n | pick acc raw | pick acc `cal-20261123-0` | pick acc `cal-20261123-1` | pick mean P(correct) raw | pick mean P(correct) `cal-20261123-0` | pick mean P(correct) `cal-20261123-1` | check n | check acc | check mean P(correct) | seconds per state |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
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
        const cal1P = xs.map((i) => applyPhrased(type, [i.scores], [i.free], cal1));
        return {
          n: xs.length,
          accRaw: acc(raw),
          accCal: acc(calP),
          accCal1: acc(cal1P),
          pRaw: mean(raw),
          pCal: mean(calP),
          pCal1: mean(cal1P),
        };
      };
      const p = stat("pick");
      const c = stat("check");
      const tokens = rs.reduce((s, r) => s + r.stateTokens, 0) / rs.length;
      const secs = rs.reduce((s, r) => s + r.seconds, 0) / rs.length;
      out.push(
        `| ${config} | ${Math.round(tokens)} | ${rs.length} | ${p.n} | ${f(p.accRaw)} | ${f(p.accCal)} | ${f(p.accCal1)} | ${f(p.pRaw)} | ${f(p.pCal)} | ${f(p.pCal1)} | ${c.n} | ${f(c.accCal)} | ${f(c.pCal)} | ${secs.toFixed(0)} |`,
      );
    }
  }
  return out.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--configs");
  console.log(needleTable(i > 0 ? (process.argv[i + 1] as string).split(",") : ["none", "yarn", "linear"]));
}
