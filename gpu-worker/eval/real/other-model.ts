/**
 * `EVAL_MODEL_TAG=<tag> tsx gpu-worker/eval/real/other-model.ts <framing>[,<check framing>]`: another model's
 * cached real-text scores (`.cache/eval/<tag>/`, scored with score-real.ts and SVC_MODEL_PATH) next to svc-1's
 * on the SAME held-out items; each model's methods are fitted on its own scored train items.
 */
import type { QuestionType } from "../../src/calibration";
import type { EvalItem } from "../dataset/item";
import { fitMethod, METHODS, measure } from "./compare-real";
import { metricsTable } from "./markdown-real";
import { loadRealDataset, type RealScores, scoreReal } from "./score-real";

const tag = process.env.EVAL_MODEL_TAG;
if (!tag) throw new Error("set EVAL_MODEL_TAG to the other model's cache folder");
const [framing, checkFraming] = (process.argv[2] ?? "plain-mix-2").split(",") as [string, string?];
const items = loadRealDataset();
const other = async (id: string) => scoreReal(id, items, undefined, () => {});
const ours = async (id: string) => {
  delete process.env.EVAL_MODEL_TAG;
  const rs = await scoreReal(id, items, undefined, () => {});
  process.env.EVAL_MODEL_TAG = tag;
  return rs;
};
const scored = (rs: RealScores, it: EvalItem) => rs.state.has(it.id) && rs.free.has(it.id);
const rows: Parameters<typeof metricsTable>[1] = [];
for (const type of ["pick", "rate", "check"] as QuestionType[]) {
  const id = type === "check" && checkFraming ? checkFraming : framing;
  const [a, b] = [await ours(id), await other(id)];
  const held = items.filter((i) => i.type === type && i.split === "heldout" && scored(a, i) && scored(b, i));
  for (const [name, rs] of [
    ["svc-1 SmolLM2-135M", a],
    [tag, b],
  ] as const)
    for (const method of METHODS) {
      const fit = fitMethod(type, method, items, rs);
      rows.push({
        label: `${name}, \`${id}\` ${method}`,
        type,
        r: measure(type, method, fit, held, rs).report,
      });
    }
}
console.log(metricsTable("model, framing, method (same held-out items)", rows));
