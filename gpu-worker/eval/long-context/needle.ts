/**
 * Answer quality past SmolLM2's 8,192-token training context (issue #12 item 5), with and without RoPE scaling.
 * Needle set: 8 facts ("Marta's bicycle is green.") spread evenly through a state of real filler text (the
 * distinct states of the real-text set, seeded order), then per fact one pick ("What colour is Marta's
 * bicycle?", 4 options) and one check ("Is Marta's bicycle green?", true or a false option, alternating).
 * Two fact sets per length; lengths in tokens of the state. One prefill per (config, length, set): cheap
 * enough for 1 thread. Raw scores and the content-free ("N/A") scores are cached per config in
 * `.cache/eval/needle/<config>.jsonl`, so any calibration can be applied afterwards (`needle-report.ts`).
 *   tsx gpu-worker/eval/long-context/needle.ts --configs none,yarn [--lengths 0,2000,6000,10000,14000] [--long-sets 1]
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { V1_LIMITS } from "../../../schema/models";
import { contextSizeFor } from "../../src/context-size";
import { getFraming } from "../../src/framings";
import { defaultModelPath } from "../../src/model-check";
import { openScorer, type ScorerOptions } from "../../src/scorer";
import { loadRealDataset } from "../real/score-real";
import { CACHE_DIR } from "../score-cache";

/** The served framing (`svc-1.1.0` and later). */
export const NEEDLE_FRAMING = "plain-mix-2";
export const NEEDLE_DIR = join(CACHE_DIR, "needle");

export const ROPE_CONFIGS: Record<string, ScorerOptions["ropeScaling"] | undefined> = {
  none: undefined,
  // 16,640 / 8,192 = 2.03125: stretches the training context over the worker's context. (Not an integer on
  // purpose: node-llama-cpp passes an integer as an int override, which llama.cpp ignores for a float key.)
  yarn: { type: "yarn", factor: 2.03125, originalContextLength: 8192 },
  linear: { type: "linear", factor: 2.03125, originalContextLength: 8192 },
};

interface Fact {
  /** The sentence placed in the state, `{o}` = the true option. */
  says: string;
  pick: string;
  /** The check question, `{o}` = the option asked about. */
  check: string;
  options: string[];
  answer: number;
}

/** 16 facts of distinct kinds (two sets of 8), so that no two facts in one state compete for a question. */
export const FACTS: Fact[] = [
  {
    says: "The password for the staff wifi is {o}.",
    pick: "What is the password for the staff wifi?",
    check: "Is the password for the staff wifi {o}?",
    options: ["tiger", "falcon", "dolphin", "wolf"],
    answer: 2,
  },
  {
    says: "The team meeting on Friday is held in {o}.",
    pick: "Where is the team meeting on Friday held?",
    check: "Is the team meeting on Friday held in {o}?",
    options: ["the library", "the kitchen", "the garden", "the basement"],
    answer: 1,
  },
  {
    says: "Maria's new bicycle is {o}.",
    pick: "What colour is Maria's new bicycle?",
    check: "Is Maria's new bicycle {o}?",
    options: ["red", "blue", "green", "yellow"],
    answer: 3,
  },
  {
    says: "Our delivery driver this week is called {o}.",
    pick: "What is the delivery driver called?",
    check: "Is the delivery driver called {o}?",
    options: ["Peter", "Ahmed", "Sofia", "Kenji"],
    answer: 0,
  },
  {
    says: "The parcel for Mr Brown was sent to {o}.",
    pick: "Where was the parcel for Mr Brown sent?",
    check: "Was the parcel for Mr Brown sent to {o}?",
    options: ["Berlin", "Madrid", "Chicago", "Sydney"],
    answer: 2,
  },
  {
    says: "The customer ordered a {o}.",
    pick: "What did the customer order?",
    check: "Did the customer order a {o}?",
    options: ["lamp", "guitar", "sofa", "printer"],
    answer: 1,
  },
  {
    says: "The school trip goes to the {o}.",
    pick: "Where does the school trip go?",
    check: "Does the school trip go to the {o}?",
    options: ["zoo", "museum", "beach", "farm"],
    answer: 0,
  },
  {
    says: "Grandma's favourite flower is the {o}.",
    pick: "What is Grandma's favourite flower?",
    check: "Is Grandma's favourite flower the {o}?",
    options: ["rose", "tulip", "daisy", "lily"],
    answer: 3,
  },
  {
    says: "The secret ingredient in the soup is {o}.",
    pick: "What is the secret ingredient in the soup?",
    check: "Is the secret ingredient in the soup {o}?",
    options: ["ginger", "honey", "lemon", "garlic"],
    answer: 1,
  },
  {
    says: "The winner of the chess tournament was {o}.",
    pick: "Who won the chess tournament?",
    check: "Did {o} win the chess tournament?",
    options: ["Anna", "Boris", "Chen", "David"],
    answer: 2,
  },
  {
    says: "Tom keeps his spare key under the {o}.",
    pick: "Where does Tom keep his spare key?",
    check: "Does Tom keep his spare key under the {o}?",
    options: ["doormat", "flowerpot", "stone", "bench"],
    answer: 0,
  },
  {
    says: "The concert on Saturday starts at {o}.",
    pick: "When does the concert on Saturday start?",
    check: "Does the concert on Saturday start at {o}?",
    options: ["six", "seven", "eight", "nine"],
    answer: 3,
  },
  {
    says: "The company's new office is in {o}.",
    pick: "Where is the company's new office?",
    check: "Is the company's new office in {o}?",
    options: ["London", "Toronto", "Mumbai", "Oslo"],
    answer: 1,
  },
  {
    says: "Lisa's cat is named {o}.",
    pick: "What is Lisa's cat named?",
    check: "Is Lisa's cat named {o}?",
    options: ["Milo", "Luna", "Oscar", "Bella"],
    answer: 2,
  },
  {
    says: "The train to the airport leaves from platform {o}.",
    pick: "Which platform does the train to the airport leave from?",
    check: "Does the train to the airport leave from platform {o}?",
    options: ["two", "four", "five", "eight"],
    answer: 0,
  },
  {
    says: "The refund was paid by {o}.",
    pick: "How was the refund paid?",
    check: "Was the refund paid by {o}?",
    options: ["cheque", "bank transfer", "cash", "gift card"],
    answer: 3,
  },
];

const fill = (t: string, o: string) => t.replace("{o}", o);

export interface NeedleItem {
  id: string;
  question: ScoreQuestion;
  /** Index of the correct outcome (check: yes 0, no 1). */
  answer: number;
  /** Where the fact sits in the state, as a fraction of its characters. */
  depth: number;
}

/** Questions on fact set `set` (0 or 1): a pick and a check per fact, the check's truth alternating. */
export function needleQuestions(set: number): NeedleItem[] {
  const facts = FACTS.slice(set * 8, set * 8 + 8);
  return facts.flatMap((f, i) => {
    const truthful = i % 2 === 0;
    const asked = truthful ? f.answer : (f.answer + 1 + (i % 3)) % f.options.length;
    const depth = (i + 0.5) / 8;
    return [
      {
        id: `s${set}-f${i}-pick`,
        depth,
        answer: f.answer,
        question: {
          id: `s${set}-f${i}-pick`,
          type: "pick",
          instructions: f.pick,
          criteria: [],
          options: f.options.map((label) => ({ label, description: null })),
        },
      },
      {
        id: `s${set}-f${i}-check`,
        depth,
        answer: truthful ? 0 : 1,
        question: {
          id: `s${set}-f${i}-check`,
          type: "check",
          instructions: fill(f.check, f.options[asked] as string),
          criteria: [],
        },
      },
    ] satisfies NeedleItem[];
  });
}

/** Distinct real-text states in a seeded order (filler). */
function fillerTexts(seed: number): string[] {
  const states = [...new Set(loadRealDataset().map((i) => i.state))].filter((s) => s.length > 40);
  let x = seed >>> 0;
  const rnd = () => {
    x = (x + 0x6d2b79f5) >>> 0;
    let t = x;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = states.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [states[i], states[j]] = [states[j] as string, states[i] as string];
  }
  return states;
}

/** A state of about `tokens` tokens (by `count`) of filler with set `set`'s 8 facts at depths (i + ½)/8. */
export function needleState(set: number, tokens: number, count: (s: string) => number): string {
  const facts = FACTS.slice(set * 8, set * 8 + 8).map((f) => fill(f.says, f.options[f.answer] as string));
  const filler = fillerTexts(20261123 + set);
  const chunks: string[] = [];
  let n = 0;
  let k = 0;
  while (n < tokens && k < filler.length) {
    const c = filler[k++] as string;
    chunks.push(c);
    n += count(c) + 2;
  }
  const out: string[] = [];
  let next = 0;
  for (let i = 0; i <= chunks.length; i++) {
    while (next < 8 && (chunks.length === 0 || i / chunks.length >= (next + 0.5) / 8))
      out.push(facts[next++] as string);
    if (i < chunks.length) out.push(chunks[i] as string);
  }
  while (next < 8) out.push(facts[next++] as string);
  return out.join("\n\n");
}

export interface NeedleRow {
  config: string;
  length: number;
  set: number;
  stateTokens: number;
  items: (NeedleItem & { scores: number[]; free: number[]; tokens: number[] })[];
  seconds: number;
}

export function readNeedleRows(config: string): NeedleRow[] {
  const p = join(NEEDLE_DIR, `${config}.jsonl`);
  if (!existsSync(p)) return [];
  return readFileSync(p, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as NeedleRow);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (n: string) =>
    process.argv.includes(n) ? process.argv[process.argv.indexOf(n) + 1] : undefined;
  const configs = (arg("--configs") ?? "none,yarn").split(",");
  const lengths = (arg("--lengths") ?? "0,2000,6000,10000,14000").split(",").map(Number);
  const framing = getFraming(NEEDLE_FRAMING);
  mkdirSync(NEEDLE_DIR, { recursive: true });
  for (const config of configs) {
    const done = new Set(readNeedleRows(config).map((r) => `${r.length}:${r.set}`));
    const scorer = await openScorer({
      modelPath: defaultModelPath(),
      threads: Number(process.env.EVAL_THREADS ?? 1),
      sequences: 1,
      contextSize: contextSizeFor(V1_LIMITS),
      ropeScaling: ROPE_CONFIGS[config],
    });
    try {
      const count = (s: string) => scorer.model.tokenize(s).length;
      // Past the training context one fact set per length (a 14k prefill takes minutes on 1 thread here).
      const longSets = Number(arg("--long-sets") ?? 1);
      for (const length of lengths)
        for (const set of length > 8192 ? [0, 1].slice(0, longSets) : [0, 1]) {
          if (done.has(`${length}:${set}`)) continue;
          const qs = needleQuestions(set);
          const state = needleState(set, length, count);
          const t0 = performance.now();
          const raw = await scorer.rawScores(
            state,
            qs.map((q) => q.question),
            framing,
          );
          const free = await scorer.rawScores(
            "N/A",
            qs.map((q) => q.question),
            framing,
          );
          const row: NeedleRow = {
            config,
            length,
            set,
            stateTokens: count(state),
            seconds: (performance.now() - t0) / 1000,
            items: qs.map((q, i) => ({
              ...q,
              scores: raw.scores[i] as number[],
              free: free.scores[i] as number[],
              tokens: raw.tokensPerOutcome[i] as number[],
            })),
          };
          appendFileSync(join(NEEDLE_DIR, `${config}.jsonl`), `${JSON.stringify(row)}\n`);
          console.log(
            `${config} ${length} set ${set}: ${row.stateTokens} tokens, ${row.seconds.toFixed(0)} s`,
          );
        }
    } finally {
      await scorer.close();
    }
  }
}
