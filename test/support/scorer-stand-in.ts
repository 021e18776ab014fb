import type { Framing } from "../../gpu-worker/src/framings";
import type { RawScores, Scorer } from "../../gpu-worker/src/scorer";
import type { ScoreQuestion } from "../../schema/engine-protocol";
import { STUB_NUMERICS } from "./stub-numerics";

/** How a stand-in was asked: `score` (a prepared request) or `rawScores` (the engine's content-free pass). */
export type StandInCall = "score" | "rawScores";

/**
 * A scorer stand-in for unit tests (no model): every request is answered by `raw`, told how it was asked;
 * `prepare` only records the request.
 */
export function scorerStandIn(
  raw: (state: string, qs: ScoreQuestion[], framing: Framing, call: StandInCall) => RawScores,
): Scorer {
  return {
    model: undefined as never,
    contextSize: 1024,
    numerics: STUB_NUMERICS,
    prepare: (state, qs, framing) => ({ peakTokens: 1, costTokens: 1, state, qs, framing }) as never,
    score: async (p) => {
      const x = p as unknown as { state: string; qs: ScoreQuestion[]; framing: Framing };
      return raw(x.state, x.qs, x.framing, "score");
    },
    rawScores: async (state, qs, framing) => raw(state, qs, framing, "rawScores"),
    close: async () => {},
  };
}
