import { shapeAnswer } from "../../schema/answers";
import type { ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import { applyCalibration, type Calibration } from "./calibration";
import { type Framing, getFraming } from "./framings";
import type { PreparedRequest, Scorer } from "./scorer";

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
