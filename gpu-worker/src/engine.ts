import { shapeAnswer } from "../../schema/answers";
import type { ScoreQuestion, ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import {
  applyCalibration,
  applyPhrased,
  type Calibration,
  contentFreeState,
  type PromptLogProb,
  relevanceOf,
  subtractContentFree,
} from "./calibration";
import { type Framing, getFraming } from "./framings";
import { getPhrasing, multiplex, phrased } from "./phrasings";
import type { PreparedRequest, Scorer } from "./scorer";

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
    for (const [type, t] of Object.entries(calibration.types))
      if (t.relevance_weight !== undefined && !(t.contextual && t.phrasings))
        throw new Error(
          `calibration ${calibration.version}: ${type}'s relevance needs phrasings and contextual`,
        );
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

  /** Per expanded question: is its prompt log-probability read (its type has a `relevance_weight`)? */
  private relevance(questions: ScoreQuestion[]): boolean[] | undefined {
    const flags = questions.map((q) => this.calibration.types[q.type].relevance_weight !== undefined);
    return flags.some(Boolean) ? flags : undefined;
  }

  /** Tokenizes and plans `req` as this version evaluates it (phrasings expanded), without the size check. */
  plan(req: Pick<ScoreRequest, "state" | "questions">): PreparedRequest {
    const x = this.expand(req.questions);
    const rel = this.relevance(x.questions);
    return rel
      ? this.scorer.prepare(req.state, x.questions, x.framing, rel)
      : this.scorer.prepare(req.state, x.questions, x.framing);
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

  /** Scores `req` (with its plan from `prepare`, or planned here) and shapes the calibrated answers. */
  async score(req: ScoreRequest, prepared = this.prepare(req)): Promise<ScoreResponse> {
    const raw = await this.scorer.score(prepared);
    const types = this.calibration.types;
    const x = this.expand(req.questions);
    // Content-free scores of the contextual types' (expanded) questions.
    const ctx = x.questions.flatMap((q, j) => (types[q.type].contextual ? [j] : []));
    const ctxQuestions = ctx.map((j) => x.questions[j] as ScoreQuestion);
    const ctxRel = this.relevance(ctxQuestions);
    const free = !ctx.length
      ? undefined
      : ctxRel
        ? await this.scorer.score(
            this.scorer.prepare(contentFreeState(this.calibration), ctxQuestions, x.framing, ctxRel),
          )
        : await this.scorer.rawScores(contentFreeState(this.calibration), ctxQuestions, x.framing);
    if (free) {
      raw.meter.tokens_evaluated += free.meter.tokens_evaluated;
      raw.meter.tokens_reused += free.meter.tokens_reused;
    }
    const freeOf = new Map(ctx.map((j, k) => [j, free?.scores[k] as number[]]));
    const freeLpOf = new Map(ctx.map((j, k) => [j, free?.promptLogProbs?.[k]]));
    const rel = (js: number[], perToken: boolean) =>
      relevanceOf(
        js.map((j) => raw.promptLogProbs?.[j] as PromptLogProb),
        js.map((j) => freeLpOf.get(j) as PromptLogProb),
        perToken,
      );
    const answers = req.questions.map((q, i) => {
      const js = x.of[i] as number[];
      const t = types[q.type];
      let p: number[];
      if (t.phrasings)
        p = applyPhrased(
          q.type,
          js.map((j) => raw.scores[j] as number[]),
          t.contextual ? js.map((j) => freeOf.get(j) as number[]) : undefined,
          this.calibration,
          t.relevance_weight !== undefined ? rel(js, t.relevance_per_token === true) : undefined,
        );
      else {
        const j = js[0] as number;
        const c = freeOf.get(j);
        const s = raw.scores[j] as number[];
        p = applyCalibration(
          q.type,
          c ? subtractContentFree(s, c) : s,
          raw.tokensPerOutcome[j] as number[],
          this.calibration,
        );
      }
      return { id: q.id, answer: shapeAnswer(q, p) };
    });
    return { model: this.modelVersion, calibration: this.calibration.version, answers, meter: raw.meter };
  }
}
