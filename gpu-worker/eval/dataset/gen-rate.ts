import { type Group, rate } from "./item";
import type { Rng } from "./rng";
import { LIST_ITEMS, REVIEW_SUBJECTS, REVIEWS } from "./tables";

/** Values far from the thresholds so the level is unambiguous. */
export function orderSize(rng: Rng, n: number): Group[] {
  const levels = ["small", "medium", "large"];
  const criteria = ["small: under 100 dollars", "medium: 100 to 500 dollars", "large: over 500 dollars"];
  return Array.from({ length: n }, () => {
    const level = rng.int(0, 2);
    const v = [rng.int(5, 80), rng.int(130, 450), rng.int(600, 2000)][level] as number;
    return {
      state: `The order total is ${v} dollars.`,
      source: "rate/order-size: thresholds in the criteria",
      questions: [{ question: rate("How large is the order?", levels, criteria), answer: level }],
    };
  });
}

export function temperature(rng: Rng, n: number): Group[] {
  const levels = ["cold", "mild", "hot"];
  const criteria = ["cold: below 10 °C", "mild: 10 to 25 °C", "hot: above 25 °C"];
  return Array.from({ length: n }, () => {
    const level = rng.int(0, 2);
    const v = [rng.int(-15, 6), rng.int(13, 22), rng.int(29, 42)][level] as number;
    return {
      state: `The temperature outside is ${v} °C.`,
      source: "rate/temperature: thresholds in the criteria",
      questions: [{ question: rate("How warm is it outside?", levels, criteria), answer: level }],
    };
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
