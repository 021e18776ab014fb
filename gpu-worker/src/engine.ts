import { shapeAnswer } from "../../schema/answers";
import type { ScoreQuestion, ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import {
  applyCalibration,
  applyPhrased,
  type Calibration,
  contentFreeState,
  subtractContentFree,
} from "./calibration";
import { type Framing, getFraming } from "./framings";
import { getPhrasing, multiplex, phrased } from "./phrasings";
import type { Meter, PreparedRequest, Scorer } from "./scorer";

/** The questions one request evaluates: each question once, or once per phrasing of its type. */
interface Expanded {
  framing: Framing;
  questions: ScoreQuestion[];
  /** Per original question, the indexes of its expanded questions. */
  of: number[][];
}

/** Thrown when a request cannot fit one sequence of the context. */
export class TooManyTokensError extends Error {}

/**
 * Scores a whole request and shapes the answers with the loaded calibration (whose framing it uses). A type
 * calibrated `contextual` also has its questions scored on the content-free state (question tokens plus a
 * few state tokens), and those scores are subtracted before the affine map.
 */
export class Engine {
  readonly framing: Framing;
  /** Set when a type is asked in several phrasings: framing 0 is the calibration's, k ≥ 1 the phrasings. */
  private readonly phrasings?: { framing: Framing; index: Record<string, number> };

  constructor(
    readonly scorer: Scorer,
    readonly calibration: Calibration,
    readonly modelVersion: string,
  ) {
    this.framing = getFraming(calibration.framing);
    const ids = [...new Set(Object.values(calibration.types).flatMap((t) => t.phrasings ?? []))];
    if (ids.length) {
      const fs = ids.map(getPhrasing);
      if (
        fs.some((f) => JSON.stringify(f.statePrefix("x")) !== JSON.stringify(this.framing.statePrefix("x")))
      )
        throw new Error(
          `calibration ${calibration.version}: phrasings must share the framing's state prefix`,
        );
      this.phrasings = {
        framing: multiplex([this.framing, ...fs]),
        index: Object.fromEntries(ids.map((id, k) => [id, k + 1])),
      };
    }
  }

  private expand(questions: ScoreQuestion[]): Expanded {
    const ph = this.phrasings;
    if (!ph) return { framing: this.framing, questions, of: questions.map((_, i) => [i]) };
    const out: ScoreQuestion[] = [];
    const of = questions.map((q) => {
      const ks = this.calibration.types[q.type].phrasings?.map((id) => ph.index[id] as number) ?? [0];
      // A phrasing that reads exactly as an earlier one for this question (e.g. `ph-qa-described` on a pick
      // without descriptions) reuses its scores instead of being evaluated again.
      const seen = new Map<string, number>();
      return ks.map((k) => {
        const pq = phrased(q, k);
        const text = JSON.stringify([ph.framing.questionPrompt(pq), ph.framing.continuations(pq)]);
        const j = seen.get(text) ?? out.push(pq) - 1;
        seen.set(text, j);
        return j;
      });
    });
    return { framing: ph.framing, questions: out, of };
  }

  /** Tokenizes and plans `req` as this version evaluates it (phrasings expanded), without the size check. */
  plan(req: Pick<ScoreRequest, "state" | "questions">): PreparedRequest {
    const x = this.expand(req.questions);
    return this.scorer.prepare(req.state, x.questions, x.framing);
  }

  /** Tokenizes and plans `req` once; throws TooManyTokensError when it cannot fit one sequence. */
  prepare(req: ScoreRequest): PreparedRequest {
    const prepared = this.plan(req);
    if (prepared.peakTokens > this.scorer.contextSize)
      throw new TooManyTokensError(
        `request needs ${prepared.peakTokens} tokens; this worker holds ${this.scorer.contextSize}`,
      );
    return prepared;
  }

  /**
   * Scores `req` (with its plan from `prepare`, or planned here): the calibrated distribution over each
   * question's outcomes, in question order, before rounding (`score` shapes them; the evaluation reads them).
   */
  async distributions(
    req: ScoreRequest,
    prepared = this.prepare(req),
  ): Promise<{ probabilities: number[][]; meter: Meter }> {
    const priority = req.priority ?? "live";
    const raw = await this.scorer.score(prepared, priority);
    const types = this.calibration.types;
    const x = this.expand(req.questions);
    // Content-free scores of the contextual types' (expanded) questions.
    const ctx = x.questions.flatMap((q, j) => (types[q.type].contextual ? [j] : []));
    const free = ctx.length
      ? await this.scorer.rawScores(
          contentFreeState(this.calibration),
          ctx.map((j) => x.questions[j] as ScoreQuestion),
          x.framing,
          priority,
        )
      : undefined;
    if (free) {
      raw.meter.tokens_evaluated += free.meter.tokens_evaluated;
      raw.meter.tokens_reused += free.meter.tokens_reused;
    }
    const freeOf = new Map(ctx.map((j, k) => [j, free?.scores[k] as number[]]));
    const probabilities = req.questions.map((q, i) => {
      const js = x.of[i] as number[];
      const t = types[q.type];
      if (t.phrasings)
        return applyPhrased(
          q.type,
          js.map((j) => raw.scores[j] as number[]),
          t.contextual ? js.map((j) => freeOf.get(j) as number[]) : undefined,
          this.calibration,
        );
      const j = js[0] as number;
      const c = freeOf.get(j);
      const s = raw.scores[j] as number[];
      return applyCalibration(
        q.type,
        c ? subtractContentFree(s, c) : s,
        raw.tokensPerOutcome[j] as number[],
        this.calibration,
      );
    });
    return { probabilities, meter: raw.meter };
  }

  /** Scores `req` (with its plan from `prepare`, or planned here) and shapes the calibrated answers. */
  async score(req: ScoreRequest, prepared = this.prepare(req)): Promise<ScoreResponse> {
    const { probabilities, meter } = await this.distributions(req, prepared);
    const answers = req.questions.map((q, i) => ({
      id: q.id,
      answer: shapeAnswer(q, probabilities[i] as number[]),
      ...(req.distributions && { distribution: probabilities[i] as number[] }),
    }));
    return { model: this.modelVersion, calibration: this.calibration.version, answers, meter };
  }
}
