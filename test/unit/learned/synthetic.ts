import { wordCounts } from "../../../schema/learned/features";
import type { WordsExample } from "../../../schema/learned/fit";
import { Rng } from "../../../schema/rng";

const FILLER = [
  "the",
  "meeting",
  "report",
  "team",
  "monday",
  "notes",
  "project",
  "update",
  "thanks",
  "review",
  "call",
  "draft",
];
const SPAM = ["prize", "winner", "free", "cash", "offer", "click"];

/**
 * Checks. Words carry the signal: a "spam" item (yes) has two or three of SPAM's words among filler, the other
 * only filler, and the version's P(yes) is at chance (drawn uniformly, whatever the label). `known`: the other
 * way round: filler only for both, and the version's P(yes) knows (0.75 / 0.25 with noise). Seeded.
 */
export function mailLike(n: number, seed: number, known = false): WordsExample[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const yes = i % 2 === 0;
    const words = Array.from({ length: 12 }, () => rng.pick(FILLER));
    if (yes && !known)
      for (let j = 0; j < 2 + (i % 3 === 0 ? 1 : 0); j++)
        words.splice(rng.int(0, words.length), 0, rng.pick(SPAM));
    // A few items of each side read the other way, so neither answer is perfect.
    if (!known && rng.next() < 0.05) words.push(rng.pick(SPAM));
    const pYes = known ? (yes ? 0.75 : 0.25) + (rng.next() - 0.5) * 0.3 : 0.2 + rng.next() * 0.6;
    return { p: [pYes, 1 - pYes], y: yes ? 0 : 1, words: wordCounts(words.join(" ")) };
  });
}
