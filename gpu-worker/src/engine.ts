import { shapeAnswer } from "../../schema/answers";
import type { ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import { applyCalibration, type Calibration, contentFreeState, subtractContentFree } from "./calibration";
import { type Framing, getFraming } from "./framings";
import type { PreparedRequest, Scorer } from "./scorer";

/** Thrown when a request cannot fit one sequence of the context. */
export class TooManyTokensError extends Error {}

/**
 * Scores a whole request and shapes the answers with the loaded calibration (whose framing it uses). A type
 * calibrated `contextual` also has its questions scored on the content-free state (question tokens plus a
 * few state tokens), and those scores are subtracted before the affine map.
 */
export class Engine {
  readonly framing: Framing;

  constructor(
    readonly scorer: Scorer,
    readonly calibration: Calibration,
    readonly modelVersion: string,
  ) {
    this.framing = getFraming(calibration.framing);
  }

  /** Tokenizes and plans `req` once; throws TooManyTokensError when it cannot fit one sequence. */
  prepare(req: ScoreRequest): PreparedRequest {
    const prepared = this.scorer.prepare(req.state, req.questions, this.framing);
    if (prepared.peakTokens > this.scorer.contextSize)
      throw new TooManyTokensError(
        `request needs ${prepared.peakTokens} tokens; this worker holds ${this.scorer.contextSize}`,
      );
    return prepared;
  }

  /** Scores `req` (with its plan from `prepare`, or planned here) and shapes the calibrated answers. */
  async score(req: ScoreRequest, prepared = this.prepare(req)): Promise<ScoreResponse> {
    const raw = await this.scorer.score(prepared);
    const types = this.calibration.types;
    const ctx = req.questions.filter((q) => types[q.type].contextual);
    const free = ctx.length
      ? await this.scorer.rawScores(contentFreeState(this.calibration), ctx, this.framing)
      : undefined;
    if (free) {
      raw.meter.tokens_evaluated += free.meter.tokens_evaluated;
      raw.meter.tokens_reused += free.meter.tokens_reused;
    }
    let k = 0;
    const answers = req.questions.map((q, i) => {
      const c = types[q.type].contextual ? (free?.scores[k++] as number[]) : undefined;
      const s = raw.scores[i] as number[];
      const p = applyCalibration(
        q.type,
        c ? subtractContentFree(s, c) : s,
        raw.tokensPerOutcome[i] as number[],
        this.calibration,
      );
      return { id: q.id, answer: shapeAnswer(q, p) };
    });
    return { model: this.modelVersion, calibration: this.calibration.version, answers, meter: raw.meter };
  }
}
