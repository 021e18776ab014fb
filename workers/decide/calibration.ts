import { shapeAnswer } from "../../schema/answers";
import { applyMap, type CalibrationMap } from "../../schema/calibration-map";
import type { ValidatedDecide } from "../../schema/decide";
import type { EngineAnswer, ScoreQuestion } from "../../schema/engine-protocol";
import { type WordCounts, wordCounts } from "../../schema/learned/features";
import { applyWordsModel, readWordsModel, type WordsModel } from "../../schema/learned/model";
import type { Dispatched } from "../clients/engine";
import {
  type ActiveCalibration,
  activeCalibrations,
  type CalibrationMode,
  calibrationMaps,
  learnedModels,
} from "../stores/calibrations";
import type { Database } from "../stores/db";
import { KEY_CACHE_TTL_MS, type KeyRecord } from "../stores/keys";
import { questionFingerprint } from "./question-fingerprint";

/**
 * Whose calibrations a call answers with: the account, and its generation as the key lookup read it (the call's
 * mode is `forRequest`'s own argument).
 */
export type CalibrationCaller = Pick<KeyRecord, "accountId"> & {
  account: Pick<KeyRecord["account"], "calibrationsGeneration">;
};

/**
 * Question id → the account's calibration that answers it in this call: its map, or (state-reading, issue 49)
 * its model, which reads the request's rendered state.
 */
export type AnswerCalibrations = Map<string, { id: string; map: CalibrationMap; model?: WordsModel }>;

/** Accounts whose maps one isolate keeps (a full cache is emptied, then refilled on demand). */
const CACHED_ACCOUNTS = 10_000;
/** State-reading models one isolate keeps, by their JSON text's length (a full cache is emptied). */
const CACHED_MODEL_CHARS = 32 * 1024 * 1024;

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

  /** State-reading models by calibration id: a row's model never changes, so one read per isolate. */
  private readonly models = new Map<string, { model: WordsModel; chars: number }>();
  private modelChars = 0;

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
    const byQuestion = new Map(rows.map((r) => [`${r.mode}\n${r.model}\n${r.fingerprint}`, r]));
    if (this.cache.size >= CACHED_ACCOUNTS) this.cache.clear();
    this.cache.set(accountId, { generation, byQuestion });
    return byQuestion;
  }

  /** The state-reading models of `ids` (calibrations of the account that have one): cached, else one query. */
  private async learned(accountId: string, ids: readonly string[]): Promise<Map<string, WordsModel>> {
    const out = new Map<string, WordsModel>();
    const missing = ids.filter((id) => !this.models.has(id));
    if (missing.length > 0) {
      const texts = await learnedModels(this.db, accountId, missing);
      for (const [id, text] of texts) {
        if (this.modelChars + text.length > CACHED_MODEL_CHARS) {
          this.models.clear();
          this.modelChars = 0;
        }
        const model = readWordsModel(text);
        this.models.set(id, { model, chars: text.length });
        this.modelChars += text.length;
        out.set(id, model);
      }
    }
    for (const id of ids) {
      const hit = this.models.get(id);
      if (hit && !out.has(id)) out.set(id, hit.model);
      if (!out.has(id)) throw new Error(`calibration ${id}'s state-reading model is gone`);
    }
    return out;
  }

  /** `out`'s state-reading entries given their models (none: no query at all). */
  private async withModels(accountId: string, out: AnswerCalibrations, learned: ReadonlySet<string>) {
    if (learned.size === 0) return out;
    const models = await this.learned(accountId, [...learned]);
    for (const cal of out.values()) if (learned.has(cal.id)) cal.model = models.get(cal.id) as WordsModel;
    return out;
  }

  /**
   * The calibrations that answer `request`'s questions on the exact version `model` for `key`'s account, in
   * `mode` (issue 50): a live call answers only with live calibrations, so a test key alone never changes a live
   * answer; a test call with the question's test calibration if there is one, else its live one.
   */
  async forRequest(
    key: CalibrationCaller,
    request: ValidatedDecide,
    model: string,
    mode: CalibrationMode,
  ): Promise<AnswerCalibrations> {
    const out: AnswerCalibrations = new Map();
    const generation = key.account.calibrationsGeneration ?? 0;
    if (generation === 0 && !this.fresh(key.accountId)) return out;
    const active = await this.active(key.accountId, generation);
    if (active.size === 0) return out;
    const learned = new Set<string>();
    for (const q of request.questions) {
      const question = `${model}\n${await questionFingerprint(q)}`;
      const hit =
        (mode === "test" ? active.get(`test\n${question}`) : undefined) ?? active.get(`live\n${question}`);
      if (hit) out.set(q.id, { id: hit.id, map: hit.map });
      if (hit?.learned) learned.add(hit.id);
    }
    return this.withModels(key.accountId, out, learned);
  }

  /** A replay's: the calibrations its original answered with, by question id (active or not). */
  async byIds(accountId: string, used: Readonly<Record<string, string>>): Promise<AnswerCalibrations> {
    const maps = await calibrationMaps(this.db, accountId, [...new Set(Object.values(used))]);
    const out: AnswerCalibrations = new Map();
    const learned = new Set<string>();
    for (const [questionId, id] of Object.entries(used)) {
      const row = maps.get(id);
      if (!row) throw new Error(`calibration ${id} of a replayed original is gone`);
      out.set(questionId, { id, map: row.map });
      if (row.learned) learned.add(id);
    }
    return this.withModels(accountId, out, learned);
  }
}

/** One answer of a Decision: the engine's, or the account's calibration's (with its id). */
export interface DecisionAnswer {
  id: string;
  answer: EngineAnswer;
  calibration?: string;
}

/**
 * The engine's answers with each calibrated question answered by its calibration instead: its map applied to
 * the version's unrounded distribution, or its state-reading model applied to that distribution and the words
 * of `state` (the request's rendered state, as billed; counted once per request, and only when a state-reading
 * calibration answers), then shaped (rounded, `min_confidence` applied) like any answer. Only a GPU answer is
 * calibrated: a fallback answer is another model's, never the account's map's. Returns the answers and which
 * calibration answered which question (what the idempotency record keeps for replays).
 */
export function calibrateAnswers(
  questions: readonly ScoreQuestion[],
  out: Pick<Dispatched, "served_by" | "result">,
  calibrations: AnswerCalibrations,
  state: string,
): { answers: DecisionAnswer[]; used: Record<string, string> } {
  const used: Record<string, string> = {};
  let words: WordCounts | undefined;
  const answers = out.result.answers.map((a, i): DecisionAnswer => {
    const cal = out.served_by === "gpu" ? calibrations.get(a.id) : undefined;
    const q = questions[i];
    if (!cal || !a.distribution || !q || q.id !== a.id) return { id: a.id, answer: a.answer };
    used[a.id] = cal.id;
    let p: number[];
    if (cal.model) {
      words ??= wordCounts(state);
      p = applyWordsModel(cal.model, a.distribution, words);
    } else p = applyMap(cal.map, a.distribution);
    return { id: a.id, answer: shapeAnswer(q, p), calibration: cal.id };
  });
  return { answers, used };
}
