import { ulid } from "ulid";
import { DEFAULT_DRIFT_THRESHOLD, DRIFT_STATISTIC, MIN_DRIFT_ANSWERS } from "../../schema/questions";
import type { Database } from "../stores/db";
import { driftSettings, recordDriftEvaluation } from "../stores/question-drift";
import { type QuestionHour, type QuestionRow, questionHours, versionsFirstAsked } from "../stores/questions";
import { addCounts, jensenShannonDistance } from "./drift-statistic";
import { isoSeconds } from "./json";
import { calibrationReference } from "./reference";

const DAY_MS = 86_400_000;
/** Both windows are a week. */
export const DRIFT_WINDOW_MS = 7 * DAY_MS;

/** What evaluating a question's drift needs: its store, and a way to wake the account's event delivery. */
export interface DriftDeps {
  db: Database;
  kick(accountId: string): Promise<void>;
}

interface Window {
  start: string;
  end: string;
  count: number;
}

/** The reference: a week of answers, or the calibration's evaluation (no window of time: null start and end). */
type Reference = Omit<Window, "start" | "end"> & {
  start: string | null;
  end: string | null;
  source: "first_week" | "reset" | "calibration";
  calibration: string | null;
  complete: boolean;
};

/** A question's drift on one version (schema/questions.ts, QuestionDrift). */
export interface DriftReport {
  object: "question_drift";
  question: string;
  model: string | null;
  statistic: typeof DRIFT_STATISTIC;
  value: number | null;
  threshold: number;
  reference: Reference;
  current: Window;
  drifted: boolean;
}

const dayOf = (ms: number) => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);

/** What drift compares: a check's ten-bin histogram of P(yes), else the answer mix. */
function distribution(
  type: QuestionRow["type"],
  hours: readonly QuestionHour[],
): { counts: number[]; n: number } {
  const counts: number[] = [];
  let n = 0;
  for (const h of hours) {
    n += h.answers;
    addCounts(counts, type === "check" ? (h.pBins ?? []) : h.mix);
  }
  return { counts, n };
}

/**
 * The question's drift at `nowMs`, per exact version (a version change is never drift: each version is compared
 * with its own reference): the last 7 days against the reference: the active calibration's evaluation on that
 * version when there is one (`reference.ts`), else the first seven UTC days from the day the version was first
 * asked; after a reset, the first seven days from the reset, calibration or not. A value needs the reference week over and at least
 * MIN_DRIFT_ANSWERS answers in each window. With `record`, each version's value is stored and a crossing of the
 * threshold queues one `question.drifted` event. Answers the report of the version with most answers this week.
 */
export async function evaluateDrift(
  deps: DriftDeps,
  q: Pick<QuestionRow, "id" | "mode" | "type" | "fingerprint"> & { accountId: string },
  nowMs: number,
  record: boolean,
): Promise<DriftReport> {
  const settings = await driftSettings(deps.db, q.accountId, q.mode, q.id);
  const threshold = settings.threshold ?? DEFAULT_DRIFT_THRESHOLD;
  const since = settings.referenceSince ?? 0;
  const source = settings.referenceSince === null ? "first_week" : "reset";
  const currentStart = nowMs - DRIFT_WINDOW_MS;
  const [firsts, recent] = await Promise.all([
    versionsFirstAsked(deps.db, q.accountId, q.mode, q.id, since),
    questionHours(deps.db, q.accountId, q.mode, q.id, currentStart, nowMs),
  ]);
  const reports: DriftReport[] = [];
  for (const [model, first] of firsts) {
    const cur = distribution(
      q.type,
      recent.filter((h) => h.model === model),
    );
    const fromCalibration =
      settings.referenceSince === null ? await calibrationReference(deps.db, q, model, nowMs) : null;
    let ref: { counts: number[]; n: number };
    let reference: Reference;
    if (fromCalibration) {
      ref = fromCalibration;
      reference = {
        start: null,
        end: null,
        count: ref.n,
        source: "calibration",
        calibration: fromCalibration.calibration,
        complete: true,
      };
    } else {
      const refStart = Math.max(dayOf(first), dayOf(since));
      const refEnd = refStart + DRIFT_WINDOW_MS;
      const refHours = await questionHours(
        deps.db,
        q.accountId,
        q.mode,
        q.id,
        refStart,
        Math.min(refEnd, nowMs),
      );
      ref = distribution(
        q.type,
        refHours.filter((h) => h.model === model),
      );
      reference = {
        start: isoSeconds(refStart),
        end: isoSeconds(refEnd),
        count: ref.n,
        source,
        calibration: null,
        complete: nowMs >= refEnd,
      };
    }
    const complete = reference.complete;
    const enough = complete && ref.n >= MIN_DRIFT_ANSWERS && cur.n >= MIN_DRIFT_ANSWERS;
    const raw = enough ? jensenShannonDistance(ref.counts, cur.counts) : null;
    const value = raw === null ? null : Math.round(raw * 1e6) / 1e6;
    const report: DriftReport = {
      object: "question_drift",
      question: q.id,
      model,
      statistic: DRIFT_STATISTIC,
      value,
      threshold,
      reference,
      current: { start: isoSeconds(currentStart), end: isoSeconds(nowMs), count: cur.n },
      drifted: value !== null && value > threshold,
    };
    if (record && value !== null && cur.n > 0) await recordCrossing(deps, q.accountId, q.mode, report, nowMs);
    reports.push(report);
  }
  reports.sort((a, b) => b.current.count - a.current.count || (a.model! < b.model! ? 1 : -1));
  return reports[0] ?? emptyReport(q.id, threshold, source, currentStart, nowMs);
}

function emptyReport(
  id: string,
  threshold: number,
  source: "first_week" | "reset",
  currentStart: number,
  nowMs: number,
): DriftReport {
  return {
    object: "question_drift",
    question: id,
    model: null,
    statistic: DRIFT_STATISTIC,
    value: null,
    threshold,
    reference: {
      start: isoSeconds(nowMs),
      end: isoSeconds(nowMs + DRIFT_WINDOW_MS),
      count: 0,
      source,
      calibration: null,
      complete: false,
    },
    current: { start: isoSeconds(currentStart), end: isoSeconds(nowMs), count: 0 },
    drifted: false,
  };
}

/** Stores the version's value; an upward crossing queues the signed `question.drifted` event and wakes delivery. */
async function recordCrossing(
  deps: DriftDeps,
  accountId: string,
  mode: "live" | "test",
  report: DriftReport,
  nowMs: number,
): Promise<void> {
  const id = `evt_${ulid()}`;
  const payload = JSON.stringify({
    id,
    object: "event",
    type: "question.drifted",
    created: Math.floor(nowMs / 1000),
    data: { object: { ...report, mode } },
  });
  const crossed = await recordDriftEvaluation(
    deps.db,
    { accountId, mode, id: report.question, model: report.model! },
    report.value!,
    report.drifted,
    nowMs,
    { id, payload },
  );
  if (crossed) await deps.kick(accountId);
}
