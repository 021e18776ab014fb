import { shapeAnswer } from "../../schema/answers";
import { applyMap } from "../../schema/calibration-map";
import type { ScoreQuestion } from "../../schema/engine-protocol";
import { wordCounts } from "../../schema/learned/features";
import { applyWordsModel, readWordsModel, type WordsModel } from "../../schema/learned/model";
import { questionLabels } from "../calibrations/labels";
import { tallyOf } from "../decide/question-tally";
import { learnedModels } from "../stores/calibrations";
import type { Database } from "../stores/db";
import { storedReference, storeReference } from "../stores/question-drift";
import { activeCalibrationFor, type QuestionRow } from "../stores/questions";
import { addCounts } from "./drift-statistic";

/** A reference read from the calibration's evaluation: what drift compares a version's last 7 days with. */
export interface CalibrationReference {
  calibration: string;
  counts: number[];
  n: number;
}

/**
 * The reference of a calibrated question on `model`: its active calibration's evaluation, each item answered as a
 * decide would be now (the evaluation's unrounded distribution with the calibration applied, then shaped), as the
 * counts drift compares (a check's ten bins of P(yes), else the mix). Read once per calibration and kept; null when
 * the question has no active calibration on that version, or its evaluation can no longer be read (deleted, or
 * scored without distributions): the first week is the reference then.
 */
export async function calibrationReference(
  db: Database,
  q: Pick<QuestionRow, "id" | "mode" | "type" | "fingerprint"> & { accountId: string },
  model: string,
  nowMs: number,
): Promise<CalibrationReference | null> {
  const cal = await activeCalibrationFor(db, q.accountId, q.mode, q.fingerprint, model);
  if (!cal) return null;
  const key = { accountId: q.accountId, mode: q.mode, id: q.id, model };
  const kept = await storedReference(db, key);
  if (kept && kept.calibration === cal.id) return { ...kept, n: kept.counts.reduce((s, x) => s + x, 0) };
  let labels: Awaited<ReturnType<typeof questionLabels>>;
  try {
    labels = await questionLabels(db, cal.evaluationId, cal.questionId);
  } catch {
    return null;
  }
  let words: WordsModel | undefined;
  if (cal.learned) {
    const text = (await learnedModels(db, q.accountId, [cal.id])).get(cal.id);
    if (text === undefined) return null;
    words = readWordsModel(text);
  }
  const question = labels.question;
  const scoreQuestion = { ...question, criteria: [] } as unknown as ScoreQuestion;
  const counts: number[] = [];
  for (const item of labels.items) {
    const p = words
      ? applyWordsModel(words, item.p, item.words ?? wordCounts(""))
      : applyMap(cal.map, item.p);
    const t = tallyOf(question, shapeAnswer(scoreQuestion, p));
    addCounts(counts, q.type === "check" ? (t.p_bins ?? []) : t.mix);
  }
  await storeReference(db, key, cal.id, counts, nowMs);
  return { calibration: cal.id, counts, n: labels.items.length };
}
