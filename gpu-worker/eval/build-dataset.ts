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
/** Share of each generator's states that go to train; the rest is held out. */
export const TRAIN_SHARE = 0.5;

type Generators = [string, Group[]][];

/** Wave 1 (1,620 items): the original set, unchanged so its cached scores stay valid. */
function wave1(rng: Rng): Generators {
  return [
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
}

/**
 * Wave 2: the same generators from the next seed, ~6× larger, so that each type's held-out split (~2,000 items)
 * can resolve an ECE-15 of 0.03 (docs/quality.md, "How many items the goal needs").
 */
function wave2(rng: Rng): Generators {
  return [
    ["num-ext", P.numberExtremes(rng, 300)],
    ["word-prob", P.wordProblems(rng, 440)],
    ["cat-word", P.categoryWords(rng, 280)],
    ["topic", P.topicText(rng, 300)],
    ["currency", P.codeNames(rng, 300, "currency")],
    ["region", P.codeNames(rng, 300, "region")],
    ["units", P.unitConversions(rng, 300)],
    ["weekday", P.weekdays(rng, 330)],
    ["order-size", R.orderSize(rng, 900)],
    ["temp", R.temperatureTenths(rng, 1200)],
    ["distance", R.distance(rng, 1800)],
    ["stars", R.explicitStarsPhrased(rng, 500)],
    ["list-count", R.listCount(rng, 900)],
    ["compare", C.comparison(rng, 1200)],
    ["sum", C.arithmetic(rng, 400)],
    ["is-cat", C.categoryMember(rng, 300)],
    ["is-positive", C.positiveReview(rng, 200)],
    ["even", C.evenNumber(rng, 600)],
    ["currency-stmt", C.currencyStatement(rng, 300)],
    ["weekday-stmt", C.weekdayStatement(rng, 800)],
    ["is-topic", C.topicMember(rng, 300)],
  ];
}

/**
 * Position of each wave-1 item among its type's wave-1 items as generated (before repeats were dropped): the
 * framing comparison takes every N-th by this position, so its subset (and the cached scores of ten framings on
 * it) does not move when items are added or dropped elsewhere.
 */
export function wave1Positions(seed = SEED): Map<string, number> {
  const next = new Map<string, number>();
  const pos = new Map<string, number>();
  for (const [name, gs] of wave1(new Rng(seed)))
    gs.forEach((g, gi) => {
      g.questions.forEach(({ question }, qi) => {
        const n = next.get(question.type) ?? 0;
        pos.set(`${name}-${gi}-${qi}`, n);
        next.set(question.type, n + 1);
      });
    });
  return pos;
}

/** Which wave an item belongs to (wave-2 ids read `<generator>-w2-<group>-<question>`). */
export const waveOf = (it: Pick<EvalItem, "id">): 1 | 2 => (it.id.includes("-w2-") ? 2 : 1);

/**
 * All items, deterministic for SEED. A wave-2 item repeating a (state, question) already present is dropped.
 * Split per generator by state: identical states share a side, and each generator is ~TRAIN_SHARE train, so
 * train and held-out see the same generator mix.
 */
export function buildDataset(seed = SEED): EvalItem[] {
  const waves: [string, Generators][] = [
    ["", wave1(new Rng(seed))],
    ["w2-", wave2(new Rng(seed + 1))],
  ];
  const items: Omit<EvalItem, "split">[] = [];
  const seen = new Set<string>();
  for (const [tag, groups] of waves) {
    for (const [name, gs] of groups) {
      gs.forEach((g, gi) => {
        g.questions.forEach(({ question, answer }, qi) => {
          const key = JSON.stringify([g.state, question]);
          if (seen.has(key)) return;
          seen.add(key);
          const id = `${name}-${tag}${gi}-${qi}`;
          items.push({
            id,
            type: question.type,
            state: g.state,
            question: ScoreQuestion.parse({ id, ...question }),
            answer,
            source: g.source,
          });
        });
      });
    }
  }
  const balanced = balanceChecks(items);
  const split = splitByGenerator(balanced, seed);
  const typeOrder = ["pick", "rate", "check"];
  const out = balanced
    .map((it) => ({ ...it, split: split.get(it.state) ?? "train" }) as EvalItem)
    .sort((a, b) => typeOrder.indexOf(a.type) - typeOrder.indexOf(b.type));
  validate(out);
  return out;
}

const generatorOf = (id: string) => id.replace(/-(w2-)?[0-9]+-[0-9]+$/, "");

/**
 * Per check generator, as many yes as no items (the first ones in generation order): dropping repeats leaves
 * fewer distinct true statements than false ones in the small tables (a currency has one name, many wrong ones).
 */
function balanceChecks<T extends Pick<EvalItem, "id" | "answer">>(items: T[]): T[] {
  const count = new Map<string, number>();
  for (const it of items)
    if (typeof it.answer === "boolean") {
      const k = `${generatorOf(it.id)}:${it.answer}`;
      count.set(k, (count.get(k) ?? 0) + 1);
    }
  const kept = new Map<string, number>();
  return items.filter((it) => {
    if (typeof it.answer !== "boolean") return true;
    const g = generatorOf(it.id);
    const cap = Math.min(count.get(`${g}:true`) ?? 0, count.get(`${g}:false`) ?? 0);
    const k = `${g}:${it.answer}`;
    kept.set(k, (kept.get(k) ?? 0) + 1);
    return (kept.get(k) as number) <= cap;
  });
}

/** FNV-1a of the state under the seed: a fixed pseudo-random order of states. */
function stateHash(state: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (const ch of state) h = Math.imul(h ^ (ch.codePointAt(0) as number), 0x01000193) >>> 0;
  return h;
}

/** Per generator, its distinct states in hash order; the first TRAIN_SHARE of them are train. */
function splitByGenerator(items: Omit<EvalItem, "split">[], seed: number): Map<string, EvalItem["split"]> {
  const statesOf = new Map<string, Set<string>>();
  for (const it of items) {
    const g = generatorOf(it.id);
    statesOf.set(g, (statesOf.get(g) ?? new Set()).add(it.state));
  }
  const split = new Map<string, EvalItem["split"]>();
  for (const states of statesOf.values()) {
    const order = [...states]
      .filter((s) => !split.has(s))
      .sort((a, b) => stateHash(a, seed) - stateHash(b, seed) || (a < b ? -1 : 1));
    const cut = Math.round(order.length * TRAIN_SHARE);
    order.forEach((s, i) => split.set(s, i < cut ? "train" : "heldout"));
  }
  return split;
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
