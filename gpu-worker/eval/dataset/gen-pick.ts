import type { Rng } from "../../../schema/rng";
import { type Group, pick } from "./item";
import { CATEGORIES, CURRENCY_CODES, MONTHS, NAMES, REGION_CODES, THINGS, TOPICS, WEEKDAYS } from "./tables";

const distinctInts = (rng: Rng, n: number, lo: number, hi: number): number[] => {
  const s = new Set<number>();
  while (s.size < n) s.add(rng.int(lo, hi));
  return [...s];
};

/** Options shuffled; returns labels and the index of `correct`. */
function shuffled(rng: Rng, correct: string, distractors: string[]): { labels: string[]; answer: number } {
  const labels = rng.shuffle([correct, ...distractors]);
  return { labels, answer: labels.indexOf(correct) };
}

export function numberExtremes(rng: Rng, n: number): Group[] {
  return Array.from({ length: n }, () => {
    const xs = distinctInts(rng, 4, 10, 99);
    const q = (which: "largest" | "smallest") => {
      const target = which === "largest" ? Math.max(...xs) : Math.min(...xs);
      const { labels, answer } = shuffled(rng, String(target), xs.filter((x) => x !== target).map(String));
      return { question: pick(`Which number is the ${which}?`, labels), answer };
    };
    return {
      state: `Numbers: ${xs.join(", ")}`,
      source: "pick/number-extremes: Math.max/min",
      questions: [q("largest"), q("smallest")],
    };
  });
}

export function wordProblems(rng: Rng, n: number): Group[] {
  return Array.from({ length: n }, () => {
    const [name, thing] = [rng.pick(NAMES), rng.pick(THINGS)];
    const a = rng.int(2, 9);
    const b = rng.int(2, 9);
    const add = rng.bool();
    const big = add ? a : a + b;
    const result = add ? a + b : a;
    const state = add
      ? `${name} has ${a} ${thing}. ${name} gets ${b} more.`
      : `${name} has ${big} ${thing}. ${name} gives away ${b}.`;
    const wrong = [
      ...new Set(
        [result + 1, result - 1, result + 2, result + 10, result - 2].filter((x) => x > 0 && x !== result),
      ),
    ];
    const { labels, answer } = shuffled(rng, String(result), rng.sample(wrong, 3).map(String));
    return {
      state,
      source: "pick/word-problem: integer arithmetic",
      questions: [{ question: pick(`How many ${thing} does ${name} have now?`, labels), answer }],
    };
  });
}

export function categoryWords(rng: Rng, n: number): Group[] {
  const cats = Object.keys(CATEGORIES);
  return Array.from({ length: n }, () => {
    const chosen = rng.sample(cats, 4);
    const words = chosen.map((c) => rng.pick(CATEGORIES[c]?.words ?? []));
    const asked = rng.sample([0, 1, 2, 3], 2);
    return {
      state: `Words: ${words.join(", ")}`,
      source: "pick/category-word: hand-written category tables",
      questions: asked.map((i) => {
        const { labels, answer } = shuffled(
          rng,
          words[i] as string,
          words.filter((_, j) => j !== i),
        );
        return { question: pick(`Which word is ${CATEGORIES[chosen[i] as string]?.noun}?`, labels), answer };
      }),
    };
  });
}

export function topicText(rng: Rng, n: number): Group[] {
  const topics = Object.keys(TOPICS);
  return Array.from({ length: n }, () => {
    const topic = rng.pick(topics);
    const t = TOPICS[topic] as { templates: string[]; fill: string[] };
    const state = rng.pick(t.templates).replace("{x}", rng.pick(t.fill));
    const { labels, answer } = shuffled(
      rng,
      topic,
      topics.filter((x) => x !== topic),
    );
    return {
      state,
      source: "pick/topic: templated sentences with topic vocabulary",
      questions: [{ question: pick("What is the topic of the text?", labels), answer }],
    };
  });
}

export function codeNames(
  rng: Rng,
  n: number,
  kind: "currency" | "region",
  codes: readonly string[] = kind === "currency" ? CURRENCY_CODES : REGION_CODES,
): Group[] {
  const names = new Intl.DisplayNames(["en"], { type: kind });
  return Array.from({ length: n }, () => {
    const [code, ...others] = rng.sample(codes, 4) as [string, ...string[]];
    const { labels, answer } = shuffled(
      rng,
      names.of(code) as string,
      others.map((c) => names.of(c) as string),
    );
    const what = kind === "currency" ? "Currency code" : "Country code";
    const q = kind === "currency" ? "Which currency has this code?" : "Which country has this code?";
    return {
      state: `${what}: ${code}`,
      source: `pick/${kind}-code: Intl.DisplayNames (ICU ${process.versions.icu})`,
      questions: [{ question: pick(q, labels), answer }],
    };
  });
}

/** `maxValue` 9 in wave 1; wave 2 draws 2–99 for ~10× the distinct states. */
export function unitConversions(rng: Rng, n: number, maxValue = 9): Group[] {
  const units = [
    {
      from: "metres",
      to: "centimetres",
      f: 100,
      thing: "A rope is {v} metres long.",
      q: "How long is the rope in centimetres?",
    },
    {
      from: "kilograms",
      to: "grams",
      f: 1000,
      thing: "The bag weighs {v} kilograms.",
      q: "How much does the bag weigh in grams?",
    },
    {
      from: "hours",
      to: "minutes",
      f: 60,
      thing: "The trip takes {v} hours.",
      q: "How long is the trip in minutes?",
    },
    {
      from: "minutes",
      to: "seconds",
      f: 60,
      thing: "The song lasts {v} minutes.",
      q: "How long is the song in seconds?",
    },
  ];
  return Array.from({ length: n }, () => {
    const u = rng.pick(units);
    const v = rng.int(2, maxValue);
    const right = v * u.f;
    const wrong = [v * u.f * 10, v * (u.f === 60 ? 100 : u.f / 10), (v + 1) * u.f, v + u.f].filter(
      (x) => x !== right,
    );
    const { labels, answer } = shuffled(rng, String(right), rng.sample([...new Set(wrong)], 3).map(String));
    return {
      state: u.thing.replace("{v}", String(v)),
      source: "pick/unit-conversion: exact factors",
      questions: [{ question: pick(u.q, labels), answer }],
    };
  });
}

export function weekdays(rng: Rng, n: number): Group[] {
  return Array.from({ length: n }, () => {
    const y = rng.int(2020, 2026);
    const m = rng.int(0, 11);
    const d = rng.int(1, 28);
    const wd = WEEKDAYS[new Date(Date.UTC(y, m, d)).getUTCDay()] as string;
    const { labels, answer } = shuffled(
      rng,
      wd,
      rng.sample(
        WEEKDAYS.filter((w) => w !== wd),
        3,
      ),
    );
    return {
      state: `The meeting is on ${d} ${MONTHS[m]} ${y}.`,
      source: "pick/weekday: Date.UTC(...).getUTCDay()",
      questions: [{ question: pick("On which day of the week is the meeting?", labels), answer }],
    };
  });
}
