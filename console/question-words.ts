/** The shapes of the question routes as the console reads them, and how it words them (no DOM: unit-tested). */

/** A question as written (its calibration fingerprint). */
export interface QuestionDefinition {
  type: "check" | "pick" | "rate";
  instructions: string;
  criteria?: string;
  options?: Record<string, string | null>;
  levels?: string[];
}

/** One of the account's questions (GET /v1/console/questions). */
export interface ConsoleQuestion {
  id: string;
  type: "check" | "pick" | "rate";
  question: QuestionDefinition;
  first_asked: string;
  last_asked: string;
  count_7d: number;
  versions: string[];
  calibration: string | null;
  review_rule: string | null;
}

/** One bucket of GET /v1/console/questions/{id}/series. */
export interface QuestionBucket {
  start: string;
  model: string | null;
  models: Record<string, number>;
  count: number;
  mix: Record<string, number> | number[] | null;
  mean_p_yes?: number | null;
  histogram?: number[] | null;
  mean_confidence: number | null;
  abstain_rate: number | null;
}

export interface QuestionSeries {
  type: "check" | "pick" | "rate";
  granularity: "day" | "hour";
  data: QuestionBucket[];
}

interface DriftWindow {
  start: string;
  end: string;
  count: number;
}

/** GET / POST /v1/console/questions/{id}/drift. */
export interface QuestionDrift {
  model: string | null;
  statistic: string;
  value: number | null;
  threshold: number;
  reference: DriftWindow & { source: "first_week" | "reset"; complete: boolean };
  current: DriftWindow;
  drifted: boolean;
}

/** Fewest answers of one version each week needs before drift is measured (schema/questions.ts MIN_DRIFT_ANSWERS). */
export const MIN_DRIFT_ANSWERS = 20;

/** How each statistic the API may name reads. */
export const STATISTIC_TEXT: Readonly<Record<string, string>> = {
  jensen_shannon_distance: "Jensen–Shannon distance",
};

/** The ten bins of a check's P(yes): `0.0–0.1` … `0.9–1.0`. */
export const TENTHS = Array.from(
  { length: 10 },
  (_, k) => `${(k / 10).toFixed(1)}–${((k + 1) / 10).toFixed(1)}`,
);

/**
 * What the stacked chart stacks, band by band: a pick's options and a rate's levels in their written order (their
 * share of the answers), a check's ten bins of P(yes) (the share of answers in each). Empty buckets are null.
 */
export function mixBands(
  q: QuestionDefinition,
  data: readonly QuestionBucket[],
): { labels: string[]; shares: (number | null)[][] } {
  if (q.type === "check")
    return { labels: TENTHS, shares: TENTHS.map((_, k) => data.map((b) => b.histogram?.[k] ?? null)) };
  const labels = q.type === "pick" ? Object.keys(q.options ?? {}) : (q.levels ?? []);
  const shares = labels.map((label, k) =>
    data.map((b) => {
      if (b.mix === null || b.count === 0) return null;
      return (Array.isArray(b.mix) ? b.mix[k] : b.mix[label]) ?? 0;
    }),
  );
  return { labels, shares };
}

/** A bucket where the version answering (most) differs from the last bucket that had answers. */
export interface VersionChange {
  index: number;
  start: string;
  from: string;
  to: string;
}

/** The version changes along a series (empty buckets do not break a run). */
export function versionChanges(data: readonly QuestionBucket[]): VersionChange[] {
  const out: VersionChange[] = [];
  let last: string | null = null;
  data.forEach((b, index) => {
    if (b.model === null || b.count === 0) return;
    if (last !== null && b.model !== last) out.push({ index, start: b.start, from: last, to: b.model });
    last = b.model;
  });
  return out;
}

const day = (iso: string) => iso.slice(0, 10);
const fixed = (x: number) => x.toFixed(3);

/** The drift's verdict in one sentence, and its kind for the badge. */
export function driftVerdict(d: QuestionDrift): { kind: "drifted" | "steady" | "pending"; text: string } {
  if (d.value !== null)
    return d.drifted
      ? {
          kind: "drifted",
          text: `Drifted: ${fixed(d.value)} is above the threshold ${d.threshold} on ${d.model}.`,
        }
      : {
          kind: "steady",
          text: `Steady: ${fixed(d.value)} is at or below the threshold ${d.threshold} on ${d.model}.`,
        };
  if (d.model === null)
    return {
      kind: "pending",
      text:
        d.reference.source === "reset"
          ? "Not measured yet: the new reference is the first full week from the next answer."
          : "Not measured yet: no answers yet.",
    };
  if (!d.reference.complete)
    return {
      kind: "pending",
      text: `Not measured yet: the reference week of ${d.model} runs until ${day(d.reference.end)}.`,
    };
  return {
    kind: "pending",
    text: `Not measured yet: each week needs at least ${MIN_DRIFT_ANSWERS} answers of ${d.model} (reference ${d.reference.count}, last 7 days ${d.current.count}).`,
  };
}

/** The reference window in words: where it comes from and its days. */
export function referenceText(d: QuestionDrift): string {
  const source =
    d.reference.source === "reset" ? "the first full week after your reset" : "the first week asked";
  const running = d.reference.complete ? "" : ", still running";
  return `${source}: ${day(d.reference.start)} to ${day(d.reference.end)} (not included), ${d.reference.count} answers${running}`;
}
