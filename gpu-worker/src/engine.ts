import type { ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import { shapeAnswer } from "./answers";
import { applyCalibration, type Calibration } from "./calibration";
import { type Framing, getFraming } from "./framings";
import type { Scorer } from "./scorer";

/** Thrown when a request cannot fit one sequence of the context. */
export class TooManyTokensError extends Error {}

/** Scores a whole request and shapes the answers with the loaded calibration (whose framing it uses). */
export class Engine {
  readonly framing: Framing;

  constructor(
    readonly scorer: Scorer,
    readonly calibration: Calibration,
    readonly modelVersion: string,
  ) {
    this.framing = getFraming(calibration.framing);
  }

  /** Tokens one sequence must hold for this request; throws TooManyTokensError past the context size. */
  checkSize(req: ScoreRequest): number {
    const peak = this.scorer.peakTokens(req.state, req.questions, this.framing);
    if (peak > this.scorer.contextSize)
      throw new TooManyTokensError(
        `request needs ${peak} tokens; this worker holds ${this.scorer.contextSize}`,
      );
    return peak;
  }

  async score(req: ScoreRequest): Promise<ScoreResponse> {
    const raw = await this.scorer.rawScores(req.state, req.questions, this.framing);
    const answers = req.questions.map((q, i) => {
      const p = applyCalibration(
        q.type,
        raw.scores[i] as number[],
        raw.tokensPerOutcome[i] as number[],
        this.calibration,
      );
      return { id: q.id, answer: shapeAnswer(q, p) };
    });
    return { model: this.modelVersion, calibration: this.calibration.version, answers, meter: raw.meter };
  }
}
