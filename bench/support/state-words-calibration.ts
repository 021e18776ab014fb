// A state-reading calibration (issue 49) for the benches: fitted by the real fit on synthetic labelled tickets
// whose words overlap the bench's decide, and stored as createCalibration stores it.
import { wordCounts } from "../../schema/learned/features";
import { fitWordsModel } from "../../schema/learned/fit";
import { applyWordsModel, readWordsModel, wordsModelJson } from "../../schema/learned/model";
import { renderState } from "../../schema/render";

const WORDS = (
  "parcel arrived broken money back refund order late damaged box lamp kettle shoes phone case courier " +
  "delivery address invoice price discount replacement return label warehouse support ticket thanks " +
  "please soon week today tomorrow customer gold silver account password login email update cancel " +
  "subscription charge card payment bank transfer receipt store online app screen colour size fit"
).split(" ");

/** A deterministic ticket of `n` words: a refund request when `yes`. */
export function syntheticTicket(seed: number, n: number, yes: boolean): string {
  let s = seed * 2654435761 + 1;
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const out: string[] = [];
  // Half common ticket words, half from a pool of 4,000 rarer ones (a real vocabulary's long tail).
  for (let i = 0; i < n; i++)
    out.push(
      i % 2 === 0
        ? (WORDS[Math.floor(next() * WORDS.length)] as string)
        : `w${Math.floor(next() * 4000).toString(36)}`,
    );
  if (yes) out.splice(Math.floor(next() * n), 0, "I want my money back, a refund please.");
  return out.join(" ");
}

/**
 * The model JSON and the `features` text of a check fitted on `items` tickets of `words` words each (half of
 * them refunds), the version's answers uninformative (P(yes) 0.5), as a fit on chance-level answers makes it.
 */
export function stateWordsCalibration(items = 200, words = 150): { learned: string; features: string } {
  const examples = Array.from({ length: items }, (_, i) => ({
    p: [0.5, 0.5],
    y: i % 2,
    words: wordCounts(
      renderState({ kind: "object", entries: [["ticket", syntheticTicket(i + 1, words, i % 2 === 0)]] }),
    ),
  }));
  const model = fitWordsModel("check", 2, examples, 0.1);
  const learned = wordsModelJson(model);
  const features = JSON.stringify({
    kind: "state_words",
    procedure: model.procedure,
    buckets: 1 << 18,
    vocabulary: model.vocab.length,
    l2: model.l2,
    model_bytes: learned.length,
  });
  return { learned, features };
}

/**
 * What a decide on a state-reading calibrated question adds in CPU, measured in this process: reading the
 * model's JSON (once per isolate), counting the rendered state's words and applying the model (per decide).
 */
export function stateWordsWork(learned: string, ticket: string, runs = 301) {
  const state = renderState({ kind: "object", entries: [["ticket", ticket]] });
  const median = (f: () => void) => {
    const xs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      f();
      xs.push(performance.now() - t0);
    }
    return xs.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
  };
  const model = readWordsModel(learned);
  const words = wordCounts(state);
  return {
    runs,
    readMs: median(() => readWordsModel(learned)),
    countMs: median(() => wordCounts(state)),
    applyMs: median(() => applyWordsModel(model, [0.5, 0.5], words)),
  };
}
