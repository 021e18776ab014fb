/**
 * Builds the real-text labelled set (gpu-worker/eval/data-real/{pick,rate,check}.jsonl) from the pinned
 * registry packages in ./sources.ts: `npm run eval -- --set real --build`. Deterministic for SEED.
 * Split train / held-out by source text (a hash of the text's key), so no text is on both sides.
 */
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "../../../schema/rng";
import type { EvalItem } from "../dataset/item";
import {
  difficultyItems,
  exploitItems,
  LANGUAGES,
  languageItems,
  mailItems,
  priceItems,
  type RealDraft,
  sentimentItems,
  TOPICS,
  topicItems,
} from "./families";
import { readChatterbot } from "./read-chatterbot";
import { LIKELIHOODS, readCwe } from "./read-cwe";
import { INTERVIEW_LEVELS, readInterviewQuestions } from "./read-interview";
import { readMail } from "./read-mail";
import { type RatedText, readVader, sentimentClass } from "./read-vader";
import { ensureSource, SOURCES } from "./sources";

export const REAL_SEED = 20261123;
export const REAL_DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "data-real");

/** Train or held-out by the source text's key: ~half each, stable whatever else is selected. */
export const splitOf = (key: string): EvalItem["split"] =>
  Number.parseInt(createHash("sha256").update(key).digest("hex").slice(0, 8), 16) % 2 === 0
    ? "train"
    : "heldout";

/** `n` of `xs` matching `keep`, drawn without replacement. */
const draw = <T>(rng: Rng, xs: T[], n: number, keep: (x: T) => boolean = () => true) =>
  rng.shuffle(xs.filter(keep)).slice(0, n);

function vaderTexts(all: RatedText[], rng: Rng): RatedText[] {
  const agreed = all.filter(
    (t) =>
      t.text.length >= 15 &&
      t.text.length <= 600 &&
      sentimentClass(t.meanA) &&
      sentimentClass(t.meanA) === sentimentClass(t.meanB),
  );
  return (["tweets", "amazon", "movies", "nyt"] as const).flatMap((corpus) =>
    (["positive", "negative", "neutral"] as const).flatMap((cls) =>
      draw(rng, agreed, 60, (t) => t.corpus === corpus && sentimentClass(t.meanA) === cls),
    ),
  );
}

/** Every draft of the set, in a fixed order. */
export function realDrafts(seed = REAL_SEED): RealDraft[] {
  const rng = new Rng(seed);
  const vader = readVader(ensureSource(SOURCES.vader));
  const texts = vaderTexts(vader, rng);
  const priced = draw(rng, vader, 60, (t) =>
    /[$£€]\s?\d|\d\s?(?:dollars?|bucks|usd|euros?|eur)\b/i.test(t.text),
  );
  const unpriced = draw(rng, vader, 60, (t) => t.corpus !== "nyt" && t.text.length >= 30);
  const mails = readMail(ensureSource(SOURCES.spamAssassin), [
    "spam-1",
    "spam-2",
    "easy-ham-1",
    "easy-ham-2",
    "hard-ham-1",
  ]);
  const usable = (m: (typeof mails)[number]) => m.subject.length > 0 && m.body.length >= 80;
  const chosenMail = rng.shuffle([
    ...draw(rng, mails, 150, (m) => usable(m) && m.spam),
    ...draw(rng, mails, 120, (m) => usable(m) && m.group.startsWith("easy-ham")),
    ...draw(rng, mails, 30, (m) => usable(m) && m.group === "hard-ham-1"),
  ]);
  const chat = readChatterbot(ensureSource(SOURCES.chatterbot), LANGUAGES);
  const firstOnce = new Set<string>();
  const distinct = chat.filter((d) => {
    const k = `${d.language}/${d.lines[0]}`;
    if (firstOnce.has(k) || (d.lines[0] ?? "").length < 12 || d.lines.length < 2) return false;
    firstOnce.add(k);
    return true;
  });
  const langs = LANGUAGES.flatMap((l) => draw(rng, distinct, 20, (d) => d.language === l));
  const topics = TOPICS.flatMap((t) =>
    draw(rng, distinct, 30, (d) => d.language === "english" && d.category === t),
  );
  const first = [
    ...sentimentItems(texts, rng),
    ...priceItems([...priced, ...unpriced]),
    ...mailItems(chosenMail, rng),
    ...languageItems(langs, rng),
    ...topicItems(rng.shuffle(topics), rng),
  ];
  // Rate families beyond sentiment (added 2026-11-27), drawn after everything above so its items stay as they were.
  const weaknesses = readCwe(ensureSource(SOURCES.cwe));
  const interview = readInterviewQuestions(ensureSource(SOURCES.interviewQuestions));
  const perLevel = <T>(xs: T[], levels: readonly string[], levelOf: (x: T) => string) =>
    levels.flatMap((l) => draw(rng, xs, RATE_PER_LEVEL, (x) => levelOf(x) === l));
  return [
    ...first,
    ...exploitItems(perLevel(weaknesses, LIKELIHOODS, (w) => w.likelihood)),
    ...difficultyItems(perLevel(interview, INTERVIEW_LEVELS, (q) => q.level)),
  ];
}

/** Most items per level of the CWE and interview-question rate families (their rarest level has 30 and 65). */
const RATE_PER_LEVEL = 65;

/** Drafts → items with ids `<family>-<n>` and the split of their source text. */
export function buildRealDataset(seed = REAL_SEED): EvalItem[] {
  const n = new Map<string, number>();
  return realDrafts(seed).map((d) => {
    const k = n.get(d.family) ?? 0;
    n.set(d.family, k + 1);
    const id = `${d.family}-${k}`;
    return {
      id,
      split: splitOf(d.key),
      type: d.question.type,
      state: d.state,
      question: { ...d.question, id } as EvalItem["question"],
      answer: d.answer,
      source: `${d.family}: ${d.truth}`,
      labels: d.labels,
    };
  });
}
