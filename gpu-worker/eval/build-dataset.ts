/**
 * Builds the labelled evaluation set (gpu-worker/eval/data/{pick,rate,check}.jsonl) from computable generators
 * with a fixed seed; `tsx gpu-worker/eval/build-dataset.ts`. Sources are documented in docs/quality.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ScoreQuestion } from "../../schema/engine-protocol";
import * as C from "./dataset/gen-check";
import * as P from "./dataset/gen-pick";
import * as R from "./dataset/gen-rate";
import type { EvalItem, Group } from "./dataset/item";
import { Rng } from "./dataset/rng";
import { CATEGORIES } from "./dataset/tables";

export const SEED = 20261121;
export const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), "data");

/** All items, deterministic for SEED. Split by state text (~60 % train) so held-out states are unseen. */
export function buildDataset(seed = SEED): EvalItem[] {
  const rng = new Rng(seed);
  const groups: [string, Group[]][] = [
    ["num-ext", P.numberExtremes(rng, 55)],
    ["word-prob", P.wordProblems(rng, 80)],
    ["cat-word", P.categoryWords(rng, 50)],
    ["topic", P.topicText(rng, 80)],
    ["currency", P.codeNames(rng, 60, "currency")],
    ["region", P.codeNames(rng, 60, "region")],
    ["units", P.unitConversions(rng, 60)],
    ["weekday", P.weekdays(rng, 60)],
    ["order-size", R.orderSize(rng, 90)],
    ["temp", R.temperature(rng, 90)],
    ["sentiment", R.reviewSentiment(rng, 120)],
    ["stars", R.explicitStars(rng, 50)],
    ["list-count", R.listCount(rng, 60)],
    ["compare", C.comparison(rng, 90)],
    ["sum", C.arithmetic(rng, 90)],
    ["is-cat", C.categoryMember(rng, 90)],
    ["is-positive", C.positiveReview(rng, 90)],
    ["even", C.evenNumber(rng, 60)],
    ["currency-stmt", C.currencyStatement(rng, 60)],
    ["weekday-stmt", C.weekdayStatement(rng, 60)],
    ["is-topic", C.topicMember(rng, 60)],
  ];
  const items: EvalItem[] = [];
  for (const [name, gs] of groups) {
    gs.forEach((g, gi) => {
      const s = splitOf(g.state, seed);
      g.questions.forEach(({ question, answer }, qi) => {
        const id = `${name}-${gi}-${qi}`;
        items.push({
          id,
          split: s,
          type: question.type,
          state: g.state,
          question: ScoreQuestion.parse({ id, ...question }),
          answer,
          source: g.source,
        });
      });
    });
  }
  validate(items);
  return items;
}

/** Split by the state text itself, so an identical state never sits on both sides. */
function splitOf(state: string, seed: number): EvalItem["split"] {
  let h = 0x811c9dc5 ^ seed;
  for (const ch of state) h = Math.imul(h ^ (ch.codePointAt(0) as number), 0x01000193) >>> 0;
  return new Rng(h).next() < 0.6 ? "train" : "heldout";
}

function validate(items: EvalItem[]): void {
  const seen = new Map<string, string>();
  for (const [cat, { words }] of Object.entries(CATEGORIES)) {
    for (const w of words) {
      if (seen.has(w)) throw new Error(`word ${w} in ${cat} and ${seen.get(w)}`);
      seen.set(w, cat);
    }
  }
  for (const it of items) {
    const q = it.question;
    const k = q.type === "pick" ? q.options.length : q.type === "rate" ? q.levels.length : 2;
    const labels = q.type === "pick" ? q.options.map((o) => o.label) : q.type === "rate" ? q.levels : [];
    if (new Set(labels).size !== labels.length) throw new Error(`${it.id}: duplicate labels`);
    if (
      q.type === "check"
        ? typeof it.answer !== "boolean"
        : !(Number.isInteger(it.answer) && (it.answer as number) < k)
    )
      throw new Error(`${it.id}: bad answer`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const items = buildDataset();
  mkdirSync(DATA_DIR, { recursive: true });
  for (const type of ["pick", "rate", "check"] as const) {
    const rows = items.filter((i) => i.type === type);
    writeFileSync(join(DATA_DIR, `${type}.jsonl`), `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const train = rows.filter((r) => r.split === "train").length;
    const yes = rows.filter((r) => r.answer === true).length;
    console.log(
      `${type}: ${rows.length} items (${train} train, ${rows.length - train} heldout)${type === "check" ? `, ${yes} yes` : ""}`,
    );
  }
}
