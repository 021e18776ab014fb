// The worker's context must hold every request the catalogue allows: billable tokens plus the prompt
// scaffolding. Measured here on the real tokenizer for every served framing (planning only, no scoring).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCalibration } from "../../../gpu-worker/src/calibration";
import { catalogCalibrationPath } from "../../../gpu-worker/src/calibration-pin";
import { contextSizeFor, SCAFFOLDING_MAX_TOKENS } from "../../../gpu-worker/src/context-size";
import { Engine } from "../../../gpu-worker/src/engine";
import { scorerGroups } from "../../../gpu-worker/src/model-files";
import { openScorer, type Scorer } from "../../../gpu-worker/src/scorer";
import { MODELS, V1_LIMITS } from "../../../schema/models";
import { renderForEngine } from "../../../schema/render";
import { parseStrictJson } from "../../../schema/strict-json";
import { checkTokenLimits } from "../../../workers/decide/token-limits";
import { validateDecideRequest } from "../../../workers/decide/validate";

// One scorer per weights file, with its version's read rule (planning only: a tiny context).
const versions = MODELS.filter((m) => m.served_by === "gpu" && m.status === "active");
const scorerOf = new Map<string, Scorer>();
beforeAll(async () => {
  for (const g of scorerGroups(versions.map((v) => v.id))) {
    const scorer = await openScorer({
      modelPath: g.path,
      threads: 1,
      sequences: 1,
      contextSize: 256,
      reads: g.gpu.reads,
    });
    for (const v of g.versions) scorerOf.set(v, scorer);
  }
});
afterAll(async () => {
  for (const s of new Set(scorerOf.values())) await s.close();
});

const words = (n: number, seed: string) =>
  Array.from(
    { length: n },
    (_, i) => `${seed}${i % 7 === 0 ? "." : ""} ${["order", "réclamation", "42€", "🙂", "ship"][i % 5]}`,
  ).join("");
const label = (i: number, chars: number) =>
  `${"Option label with words and digits 0123456789 ".repeat(3).slice(0, chars - 3)}${i.toString().padStart(3, "0")}`;

/** Adversarial bodies: long labels, descriptions and levels (billed too), JSON state with references, many questions. */
const BODIES = {
  check: {
    state: words(400, "Customer"),
    questions: { q: { type: "check", instructions: "Does the customer ask for a refund?" } },
  },
  manyOptions: {
    state: words(200, "Listing"),
    questions: {
      p: {
        type: "pick",
        instructions: "Which category?",
        options: Object.fromEntries(Array.from({ length: 255 }, (_, i) => [label(i, 30), null])),
      },
    },
  },
  longLabels: {
    state: words(200, "Listing"),
    questions: {
      p: {
        type: "pick",
        instructions: "Which category?",
        options: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [label(i, 100), null])),
      },
    },
  },
  described: {
    state: words(200, "Listing"),
    questions: {
      p: {
        type: "pick",
        instructions: "Which category?",
        options: Object.fromEntries(
          Array.from({ length: 8 }, (_, i) => [
            `k${i}`,
            `${i} ${"a description read by the model ".repeat(12)}`,
          ]),
        ),
      },
    },
  },
  longLevels: {
    state: words(100, "Ticket"),
    questions: {
      r: {
        type: "rate",
        instructions: "How urgent is it?",
        criteria: ["Money at stake", "Customer waiting"],
        levels: Array.from({ length: 10 }, (_, i) =>
          `${i} ${"urgency described at length ".repeat(7)}`.trim(),
        ),
      },
    },
  },
  // What svc-1 counts little or nothing of, which a byte-level vocabulary would read byte by byte.
  untokenizedBytes: {
    state: `${"\u0004\u0006\u0013\u0014\u0016\u001d".repeat(10_000)} ${words(50, "Note")}`,
    questions: { q: { type: "check", instructions: "Is there a note?" } },
  },
  unassignedPlanes: {
    state: Array.from({ length: 5_000 }, (_, i) => String.fromCodePoint(0x40000 + i * 97)).join(""),
    questions: { q: { type: "check", instructions: "Is it text?" } },
  },
  emojiCjkDigits: {
    state: `${"🙂👍🏽👨‍👩‍👧‍👦🇩🇪".repeat(200)}${"我的包裹坏了，我要退款。".repeat(300)}${"1234567890".repeat(360)}`,
    questions: { q: { type: "check", instructions: "Is it a complaint?" } },
  },
  jsonState: {
    state: {
      order: { id: "A-1", items: [{ sku: "X", note: words(50, "note") }] },
      customer: { tier: "gold" },
    },
    questions: Object.fromEntries(
      Array.from({ length: 32 }, (_, i) => [
        `q${i}`,
        { type: "check", instructions: `Is item {{order.items.0.sku}} number ${i} late?` },
      ]),
    ),
  },
};

describe("'16,384 billable tokens, 32 questions, 255 options fit the GPU worker's context with the prompt scaffolding'", () => {
  it.each(versions.map((v) => [v.id, v.calibration]))(
    "%s (%s): scaffolding ≤ SCAFFOLDING_MAX_TOKENS",
    (id) => {
      // Planned as the engine evaluates it: a version with phrasings asks each question once per phrasing.
      const engine = new Engine(scorerOf.get(id) as Scorer, loadCalibration(catalogCalibrationPath(id)), id);
      const overheads: Record<string, number> = {};
      for (const [name, body] of Object.entries(BODIES)) {
        const parsed = parseStrictJson(JSON.stringify(body));
        if (!parsed.ok) throw new Error("bad body");
        const request = validateDecideRequest(parsed.value);
        let billable = 0;
        try {
          billable = checkTokenLimits(request, V1_LIMITS).input_tokens;
        } catch (e) {
          throw new Error(`${name}: ${(e as Error).message}`);
        }
        const engineRequest = renderForEngine(request, id, "req_measure");
        const peak = engine.plan(engineRequest).peakTokens;
        overheads[name] = peak - billable;
      }
      console.log(`scaffolding over billable tokens, ${id}: ${JSON.stringify(overheads)}`);
      expect(Math.max(...Object.values(overheads))).toBeLessThanOrEqual(SCAFFOLDING_MAX_TOKENS);
    },
  );

  it("the default context holds the largest request the catalogue allows", () => {
    expect(contextSizeFor(V1_LIMITS)).toBeGreaterThanOrEqual(
      V1_LIMITS.max_total_tokens + SCAFFOLDING_MAX_TOKENS,
    );
    expect(contextSizeFor(V1_LIMITS) % 256).toBe(0);
  });
});
