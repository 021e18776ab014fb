import type { Rng } from "../../../schema/rng";
import { check, type Group } from "./item";
import { CATEGORIES, CURRENCY_CODES, MONTHS, REVIEW_SUBJECTS, REVIEWS, TOPICS, WEEKDAYS } from "./tables";

/** Every check generator draws the truth with a fair coin, so yes/no are balanced. */
export function comparison(rng: Rng, n: number): Group[] {
  return Array.from({ length: n }, () => {
    const a = rng.int(10, 99);
    let b = rng.int(10, 99);
    while (b === a) b = rng.int(10, 99);
    return {
      state: `a = ${a}, b = ${b}`,
      source: "check/comparison: a > b",
      questions: [{ question: check("Is a greater than b?"), answer: a > b }],
    };
  });
}

export function arithmetic(rng: Rng, n: number): Group[] {
  return Array.from({ length: n }, () => {
    const a = rng.int(2, 20);
    const b = rng.int(2, 20);
    const truth = rng.bool();
    const shown = truth ? a + b : a + b + rng.pick([-3, -2, -1, 1, 2, 3]);
    return {
      state: `${a} + ${b} = ${shown}`,
      source: "check/arithmetic: a + b",
      questions: [{ question: check("Is this calculation correct?"), answer: truth }],
    };
  });
}

export function categoryMember(rng: Rng, n: number): Group[] {
  const cats = Object.keys(CATEGORIES);
  return Array.from({ length: n }, () => {
    const asked = rng.pick(cats);
    const truth = rng.bool();
    const from = truth ? asked : rng.pick(cats.filter((c) => c !== asked));
    return {
      state: `Word: ${rng.pick(CATEGORIES[from]?.words ?? [])}`,
      source: "check/category-word: hand-written category tables",
      questions: [{ question: check(`Is this word ${CATEGORIES[asked]?.noun}?`), answer: truth }],
    };
  });
}

export function positiveReview(rng: Rng, n: number): Group[] {
  return Array.from({ length: n }, () => {
    const truth = rng.bool();
    return {
      state: rng.pick(truth ? REVIEWS.positive : REVIEWS.negative).replace("{s}", rng.pick(REVIEW_SUBJECTS)),
      source: "check/review-positive: clear-cut templates",
      questions: [{ question: check("Is the review positive?"), answer: truth }],
    };
  });
}

export function evenNumber(rng: Rng, n: number): Group[] {
  return Array.from({ length: n }, () => {
    const v = rng.int(10, 999);
    return {
      state: `Number: ${v}`,
      source: "check/even: v % 2",
      questions: [{ question: check("Is the number even?"), answer: v % 2 === 0 }],
    };
  });
}

export function currencyStatement(rng: Rng, n: number, codes: readonly string[] = CURRENCY_CODES): Group[] {
  const names = new Intl.DisplayNames(["en"], { type: "currency" });
  return Array.from({ length: n }, () => {
    const [code, other] = rng.sample(codes, 2) as [string, string];
    const truth = rng.bool();
    return {
      state: `The currency code ${code} stands for the ${names.of(truth ? code : other)}.`,
      source: `check/currency-statement: Intl.DisplayNames (ICU ${process.versions.icu})`,
      questions: [{ question: check("Is the statement true?"), answer: truth }],
    };
  });
}

export function weekdayStatement(rng: Rng, n: number): Group[] {
  return Array.from({ length: n }, () => {
    const [y, m, d] = [rng.int(2020, 2026), rng.int(0, 11), rng.int(1, 28)];
    const real = new Date(Date.UTC(y, m, d)).getUTCDay();
    const truth = rng.bool();
    const shown = truth ? real : (real + rng.int(1, 6)) % 7;
    return {
      state: `${d} ${MONTHS[m]} ${y} is a ${WEEKDAYS[shown]}.`,
      source: "check/weekday-statement: Date.UTC(...).getUTCDay()",
      questions: [{ question: check("Is the statement true?"), answer: truth }],
    };
  });
}

export function topicMember(rng: Rng, n: number): Group[] {
  const topics = Object.keys(TOPICS);
  return Array.from({ length: n }, () => {
    const asked = rng.pick(topics);
    const truth = rng.bool();
    const t = TOPICS[truth ? asked : rng.pick(topics.filter((x) => x !== asked))] as {
      templates: string[];
      fill: string[];
    };
    return {
      state: rng.pick(t.templates).replace("{x}", rng.pick(t.fill)),
      source: "check/topic: templated sentences with topic vocabulary",
      questions: [{ question: check(`Is this text about ${asked}?`), answer: truth }],
    };
  });
}
