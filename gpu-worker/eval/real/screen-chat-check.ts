/**
 * Chat template vs plain framing on check, re-screened on the real-text TRAIN split only (every 3rd train check
 * item; held-out never read): per framing, AUC of the raw and of the contextual yes/no margin, and the 5-fold
 * cross-validated NLL of the fitted maps. Scores from the cache (`score-real.ts --framings <id>:check --set train
 * --every 3`).
 *   tsx gpu-worker/eval/real/screen-chat-check.ts
 */
import { fileURLToPath } from "node:url";
import { calibrate, fitBest } from "../fit";
import { auc, nll } from "../metrics";
import { realExamples } from "./compare-real";
import { everyNth, loadRealDataset, scoreReal } from "./score-real";

export const CHAT_SCREEN = ["plain-mix-2", "chatml-qa", "chatml-hint"];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const items = everyNth(
    loadRealDataset().filter((i) => i.split === "train"),
    3,
  ).filter((i) => i.type === "check");
  console.log(
    "| framing (train, every 3rd check item) | n | AUC raw | AUC contextual | CV NLL fitted | CV NLL contextual-fitted |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const id of CHAT_SCREEN) {
    const rs = await scoreReal(id, items, undefined, () => {});
    const cols: string[] = [];
    let n = 0;
    for (const contextual of [false, true]) {
      const xs = realExamples("check", items, rs, contextual).filter((x) => rs.free.has(x.item.id));
      n = xs.length;
      const margin = xs.map((x) => (x.ex.scores[0] as number) - (x.ex.scores[1] as number));
      cols.push(
        auc(
          margin,
          xs.map((x) => x.ex.answer === 0),
        ).toFixed(3),
      );
    }
    for (const contextual of [false, true]) {
      const xs = realExamples("check", items, rs, contextual).filter((x) => rs.free.has(x.item.id));
      const probs: number[][] = [];
      const answers: number[] = [];
      for (let f = 0; f < 5; f++) {
        const { fit } = fitBest(
          "check",
          xs.filter((_, i) => i % 5 !== f).map((x) => x.ex),
        );
        for (const x of xs.filter((_, i) => i % 5 === f)) {
          probs.push(calibrate("check", fit, x.ex));
          answers.push(x.ex.answer);
        }
      }
      cols.push(nll(probs, answers).toFixed(4));
    }
    console.log(`| \`${id}\` | ${n} | ${cols.join(" | ")} |`);
  }
}
