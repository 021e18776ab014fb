import type { Rng } from "../../../schema/rng";
import { type Group, rate } from "./item";
import { LIST_ITEMS, REVIEW_SUBJECTS, REVIEWS } from "./tables";

/** A 3-level scale whose thresholds are stated in the criteria; each level draws from a range far from them. */
interface ThresholdScale {
  levels: string[];
  criteria: string[];
  /** Value range [lo, hi] per level (integers; all three are drawn, the level's is used). */
  ranges: [number, number][];
  state: (v: number) => string;
  question: string;
  source: string;
}

function thresholdItems(rng: Rng, n: number, s: ThresholdScale): Group[] {
  return Array.from({ length: n }, () => {
    const level = rng.int(0, s.levels.length - 1);
    const v = s.ranges.map(([lo, hi]) => rng.int(lo, hi))[level] as number;
    return {
      state: s.state(v),
      source: s.source,
      questions: [{ question: rate(s.question, s.levels, s.criteria), answer: level }],
    };
  });
}

/** Order totals ≥ 10 % away from the thresholds, so the level is unambiguous. */
export function orderSize(rng: Rng, n: number): Group[] {
  return thresholdItems(rng, n, {
    levels: ["small", "medium", "large"],
    criteria: ["small: under 100 dollars", "medium: 100 to 500 dollars", "large: over 500 dollars"],
    ranges: [
      [5, 80],
      [130, 450],
      [600, 2000],
    ],
    state: (v) => `The order total is ${v} dollars.`,
    question: "How large is the order?",
    source: "rate/order-size: thresholds in the criteria",
  });
}

/** `decimals` 0 in wave 1; wave 2 uses 1 (temperatures to one decimal: ~10× the distinct states). */
export function temperature(rng: Rng, n: number, decimals = 0): Group[] {
  const k = 10 ** decimals;
  return thresholdItems(rng, n, {
    levels: ["cold", "mild", "hot"],
    criteria: ["cold: below 10 °C", "mild: 10 to 25 °C", "hot: above 25 °C"],
    ranges: [
      [-15 * k, 6 * k],
      [13 * k, 22 * k],
      [29 * k, 42 * k],
    ],
    state: (v) => `The temperature outside is ${(v / k).toFixed(decimals)} °C.`,
    question: "How warm is it outside?",
    source: "rate/temperature: thresholds in the criteria",
  });
}

/** Walking distance against thresholds stated in the criteria; values ≥ 20 % away from them. */
export function distance(rng: Rng, n: number): Group[] {
  return thresholdItems(rng, n, {
    levels: ["near", "moderate", "far"],
    criteria: ["near: under 500 metres", "moderate: 500 to 2000 metres", "far: over 2000 metres"],
    ranges: [
      [20, 400],
      [650, 1600],
      [2500, 9000],
    ],
    state: (v) => `The station is ${v} metres from the hotel.`,
    question: "How far is the station?",
    source: "rate/distance: thresholds in the criteria",
  });
}

export function reviewSentiment(rng: Rng, n: number): Group[] {
  const levels = ["negative", "neutral", "positive"] as const;
  return Array.from({ length: n }, () => {
    const level = rng.int(0, 2);
    const state = rng
      .pick(REVIEWS[levels[level] as keyof typeof REVIEWS])
      .replace("{s}", rng.pick(REVIEW_SUBJECTS));
    return {
      state,
      source: "rate/review-sentiment: clear-cut templates (neutral = purely factual)",
      questions: [{ question: rate("What is the sentiment of the text?", [...levels]), answer: level }],
    };
  });
}

export function explicitStars(rng: Rng, n: number): Group[] {
  const levels = ["1", "2", "3", "4", "5"];
  return Array.from({ length: n }, () => {
    const stars = rng.int(1, 5);
    return {
      state: `I give this ${rng.pick(REVIEW_SUBJECTS)} ${stars} out of 5 stars.`,
      source: "rate/explicit-stars: the number stated in the text",
      questions: [{ question: rate("How many stars did the reviewer give?", levels), answer: stars - 1 }],
    };
  });
}

export function listCount(rng: Rng, n: number): Group[] {
  const levels = ["1", "2", "3", "4", "5"];
  return Array.from({ length: n }, () => {
    const k = rng.int(1, 5);
    return {
      state: `Shopping list: ${rng.sample(LIST_ITEMS, k).join(", ")}`,
      source: "rate/list-count: items counted",
      questions: [{ question: rate("How many items are on the shopping list?", levels), answer: k - 1 }],
    };
  });
}

const STAR_TEMPLATES = [
  "I give this {s} {k} out of 5 stars.",
  "Rating for the {s}: {k} out of 5 stars.",
  "My score for this {s} is {k} stars out of 5.",
  "{k} out of 5 stars for the {s}.",
  "The {s} gets {k} stars out of 5 from me.",
];

/** Stars stated in the text under several phrasings (wave 2; `explicitStars` has one phrasing). */
export function explicitStarsPhrased(rng: Rng, n: number): Group[] {
  const levels = ["1", "2", "3", "4", "5"];
  return Array.from({ length: n }, () => {
    const stars = rng.int(1, 5);
    const state = rng
      .pick(STAR_TEMPLATES)
      .replace("{s}", rng.pick(REVIEW_SUBJECTS))
      .replace("{k}", String(stars));
    return {
      state,
      source: "rate/explicit-stars: the number stated in the text",
      questions: [{ question: rate("How many stars did the reviewer give?", levels), answer: stars - 1 }],
    };
  });
}
