/**
 * The needle set (`npm run eval -- --set needle`): answer quality past SmolLM2's 8,192-token training context
 * (issue #12 item 5), with and without RoPE scaling (`--rope`). 8 facts ("Marta's bicycle is green.") spread
 * evenly through a state of real filler text (the distinct states of the real-text set, seeded order), then per
 * fact one pick ("What colour is Marta's bicycle?", 4 options) and one check ("Is Marta's bicycle green?", true
 * or a false option, alternating). Two fact sets per length, one past 8,192 tokens (a 14k prefill takes minutes
 * on one thread); lengths in tokens of the state. Every item is held out (nothing is fitted on it).
 */
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import type { ScorerOptions } from "../../src/scorer";
import type { EvalItem } from "../dataset/item";
import { loadSet } from "../sets";

/** RoPE scaling of SmolLM2's file (`--rope`), stretching its training context over the worker's. */
export const ROPE_CONFIGS: Record<string, ScorerOptions["ropeScaling"] | undefined> = {
  none: undefined,
  // 16,640 / 8,192 = 2.03125: stretches the training context over the worker's context. (Not an integer on
  // purpose: node-llama-cpp passes an integer as an int override, which llama.cpp ignores for a float key.)
  yarn: { type: "yarn", factor: 2.03125, originalContextLength: 8192 },
  linear: { type: "linear", factor: 2.03125, originalContextLength: 8192 },
};

/** State lengths in tokens when `--lengths` is not given. */
export const NEEDLE_LENGTHS = [0, 2000, 6000, 10000, 14000];

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

interface NeedleItem {
  id: string;
  question: ScoreQuestion;
  /** Index of the correct outcome (check: yes 0, no 1). */
  answer: number;
}

/** Questions on fact set `set` (0 or 1): a pick and a check per fact, the check's truth alternating. */
function needleQuestions(set: number): NeedleItem[] {
  const facts = FACTS.slice(set * 8, set * 8 + 8);
  return facts.flatMap((f, i) => {
    const truthful = i % 2 === 0;
    const asked = truthful ? f.answer : (f.answer + 1 + (i % 3)) % f.options.length;
    return [
      {
        id: `s${set}-f${i}-pick`,
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
  const states = [...new Set(loadSet("real").map((i) => i.state))].filter((s) => s.length > 40);
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
function needleState(set: number, tokens: number, count: (s: string) => number): string {
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

/**
 * The set for state lengths `lengths` (tokens by `count`, the evaluated model's tokenizer); family = the length,
 * so the report's per-family rows read per length.
 */
export function needleItems(lengths: number[], count: (s: string) => number): EvalItem[] {
  return lengths.flatMap((length) =>
    (length > 8192 ? [0] : [0, 1]).flatMap((set) => {
      const state = needleState(set, length, count);
      return needleQuestions(set).map(
        (q): EvalItem => ({
          id: `${length}-${q.id}`,
          split: "heldout",
          type: q.question.type,
          state,
          question: q.question,
          answer: q.question.type === "check" ? q.answer === 0 : q.answer,
          source: `length ${String(length).padStart(5, "0")}: fact set ${set} in real-text filler`,
        }),
      );
    }),
  );
}
