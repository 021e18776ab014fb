import { shapeAnswer } from "../../schema/answers";
import { applyMap, type CalibrationMap } from "../../schema/calibration-map";
import type { ValidatedDecide } from "../../schema/decide";
import type { EngineAnswer, ScoreQuestion } from "../../schema/engine-protocol";
import type { Dispatched } from "../clients/engine";
import { type ActiveCalibration, activeCalibrations, calibrationMaps } from "../stores/calibrations";
import type { Database } from "../stores/db";
import { KEY_CACHE_TTL_MS, type KeyRecord } from "../stores/keys";
import { questionFingerprint } from "./question-fingerprint";

/** Whose calibrations a call answers with: the account, and its generation as the key lookup read it. */
export type CalibrationCaller = Pick<KeyRecord, "accountId"> & {
  account: Pick<KeyRecord["account"], "calibrationsGeneration">;
};

/** Question id → the account's calibration that answers it in this call. */
export type AnswerCalibrations = Map<string, { id: string; map: CalibrationMap }>;

/** Accounts whose maps one isolate keeps (a full cache is emptied, then refilled on demand). */
const CACHED_ACCOUNTS = 10_000;

/**
 * An account's active calibrations, cached in the isolate by the account's generation (read with the key, ≤ 1 s
 * old): an account that never calibrated costs nothing; one that did, one Postgres query per isolate after each
 * change, none otherwise.
 */
export class CalibrationLookup {
  private readonly cache = new Map<
    string,
    { generation: number; byQuestion: Map<string, ActiveCalibration> }
  >();

  /** Accounts whose calibrations changed in this isolate, until the key cache's generation catches up. */
  private readonly changed = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The account's calibrations were just created or deleted here: for the key cache's second its decides in this
   * isolate read them afresh, so the caller's next decide already answers with the change.
   */
  invalidate(accountId: string): void {
    this.cache.delete(accountId);
    this.changed.set(accountId, this.now() + KEY_CACHE_TTL_MS);
  }

  private fresh(accountId: string): boolean {
    const until = this.changed.get(accountId);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.changed.delete(accountId);
    return false;
  }

  private async active(accountId: string, generation: number): Promise<Map<string, ActiveCalibration>> {
    const hit = this.cache.get(accountId);
    if (hit && hit.generation === generation && !this.fresh(accountId)) return hit.byQuestion;
    const rows = await activeCalibrations(this.db, accountId);
    const byQuestion = new Map(rows.map((r) => [`${r.model}\n${r.fingerprint}`, r]));
    if (this.cache.size >= CACHED_ACCOUNTS) this.cache.clear();
    this.cache.set(accountId, { generation, byQuestion });
    return byQuestion;
  }

  /** The calibrations that answer `request`'s questions on the exact version `model` for `key`'s account. */
  async forRequest(
    key: CalibrationCaller,
    request: ValidatedDecide,
    model: string,
  ): Promise<AnswerCalibrations> {
    const out: AnswerCalibrations = new Map();
    const generation = key.account.calibrationsGeneration ?? 0;
    if (generation === 0 && !this.fresh(key.accountId)) return out;
    const active = await this.active(key.accountId, generation);
    if (active.size === 0) return out;
    for (const q of request.questions) {
      const hit = active.get(`${model}\n${await questionFingerprint(q)}`);
      if (hit) out.set(q.id, { id: hit.id, map: hit.map });
    }
    return out;
  }

  /** A replay's: the calibrations its original answered with, by question id (active or not). */
  async byIds(accountId: string, used: Readonly<Record<string, string>>): Promise<AnswerCalibrations> {
    const maps = await calibrationMaps(this.db, accountId, [...new Set(Object.values(used))]);
    const out: AnswerCalibrations = new Map();
    for (const [questionId, id] of Object.entries(used)) {
      const map = maps.get(id);
      if (!map) throw new Error(`calibration ${id} of a replayed original is gone`);
      out.set(questionId, { id, map });
    }
    return out;
  }
}

/** One answer of a Decision: the engine's, or the account's calibration's (with its id). */
export interface DecisionAnswer {
  id: string;
  answer: EngineAnswer;
  calibration?: string;
}

/**
 * The engine's answers with each calibrated question answered by its map instead: applied to the version's
 * unrounded distribution, then shaped (rounded, `min_confidence` applied) like any answer. Only a GPU answer is
 * calibrated: a fallback answer is another model's, never the account's map's. Returns the answers and which
 * calibration answered which question (what the idempotency record keeps for replays).
 */
export function calibrateAnswers(
  questions: readonly ScoreQuestion[],
  out: Pick<Dispatched, "served_by" | "result">,
  calibrations: AnswerCalibrations,
): { answers: DecisionAnswer[]; used: Record<string, string> } {
  const used: Record<string, string> = {};
  const answers = out.result.answers.map((a, i): DecisionAnswer => {
    const cal = out.served_by === "gpu" ? calibrations.get(a.id) : undefined;
    const q = questions[i];
    if (!cal || !a.distribution || !q || q.id !== a.id) return { id: a.id, answer: a.answer };
    used[a.id] = cal.id;
    return { id: a.id, answer: shapeAnswer(q, applyMap(cal.map, a.distribution)), calibration: cal.id };
  });
  return { answers, used };
}
