/**
 * Decide contract cost per request: strict JSON parse, step 3 (schema), steps 4–5 (model, references,
 * uniqueness) and step 6 (render + count tokens), for three shapes at the limits.
 * Run: `npx tsx bench/decide-contract.ts [--runs 30]`. Results go to docs/benchmarks.md ("Decide contract").
 */
import { parseStrictJson } from "../schema/strict-json";
import { warmTokenizer } from "../schema/tokenizer";
import { checkReferences } from "../workers/decide/references";
import { resolveModel } from "../workers/decide/resolve-model";
import { checkTokenLimits } from "../workers/decide/token-limits";
import { checkUniqueness } from "../workers/decide/uniqueness";
import { validateDecideRequest } from "../workers/decide/validate";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 30;

// Deterministic pseudo-random English-like words (mulberry32), so the tokenizer's piece cache is realistic.
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const WORDS =
  "the order customer refund delivery parcel invoice was late charged twice please account support ticket address payment card bank transfer warehouse shipped returned damaged item quantity price discount email phone".split(
    " ",
  );
function prose(chars: number, seed: number): string {
  const r = rng(seed);
  let s = "";
  while (s.length < chars)
    s += `${WORDS[Math.floor(r() * WORDS.length)]}${r() < 0.08 ? ". " : " "}${r() < 0.05 ? Math.floor(r() * 9999) : ""}`;
  return s.slice(0, chars).trimEnd() + ".";
}

const check = (i: number) => ({ type: "check", instructions: `Question ${i}: ${prose(400, 100 + i)}` });
const cases: Array<[string, unknown]> = [
  [
    "(a) 64 KiB string state, 32 questions",
    {
      state: prose(65_000, 1),
      questions: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`q${i}`, check(i)])),
    },
  ],
  [
    "(b) JSON state near 16k tokens",
    {
      state: {
        customer: { id: 42, name: "Ada", tier: "gold" },
        orders: Array.from({ length: 335 }, (_, i) => ({
          id: 1000 + i,
          status: i % 3 ? "shipped" : "late",
          note: prose(170, i),
        })),
      },
      questions: {
        late: { type: "check", instructions: "Is order {{orders.0.id}} late for {{customer.name}}?" },
      },
    },
  ],
  [
    "(c) one pick with 255 options",
    {
      state: prose(2000, 7),
      questions: {
        team: {
          type: "pick",
          instructions: "Which team handles this?",
          options: Object.fromEntries(
            Array.from({ length: 255 }, (_, i) => [`team ${i}`, i % 2 ? null : "handles things"]),
          ),
        },
      },
    },
  ],
];

const ms = (t0: number) => performance.now() - t0;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

const t0 = performance.now();
warmTokenizer();
console.log(`tokenizer load (merge table): ${ms(t0).toFixed(1)} ms`);
console.log(
  "| case | body bytes | state tokens | question tokens | parse | step 3 | steps 4–5 | step 6 | total (median) | total p95 | first run |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const [name, body] of cases) {
  const text = JSON.stringify(body);
  const phases: number[][] = [[], [], [], [], []];
  let counts = { state_tokens: 0, question_tokens: 0, input_tokens: 0 };
  for (let i = 0; i < RUNS + 1; i++) {
    let t = performance.now();
    const start = t;
    const parsed = parseStrictJson(text);
    if (!parsed.ok) throw new Error(parsed.message);
    const tParse = ms(t);
    t = performance.now();
    const v = validateDecideRequest(parsed.value);
    const t3 = ms(t);
    t = performance.now();
    const model = resolveModel(v.model, v.fallback);
    checkReferences(v);
    checkUniqueness(v);
    const t45 = ms(t);
    t = performance.now();
    counts = checkTokenLimits(v, model.version.limits);
    const t6 = ms(t);
    for (const [k, x] of [tParse, t3, t45, t6, ms(start)].entries()) phases[k]!.push(x);
  }
  const first = phases[4]![0]!;
  const warm = phases.map((p) => p.slice(1));
  const f = (x: number) => `${x.toFixed(2)} ms`;
  console.log(
    `| ${name} | ${text.length} | ${counts.state_tokens} | ${counts.question_tokens} | ${warm
      .slice(0, 4)
      .map((p) => f(median(p)))
      .join(" | ")} | ${f(median(warm[4]!))} | ${f(p95(warm[4]!))} | ${f(first)} |`,
  );
}
