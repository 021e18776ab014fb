/** How the console words review rules and which key labels what (issue 51; no DOM here: the unit tier reads it). */

/** A question as a decide writes it (the rule's and each kept item's). */
export interface ReviewQuestion {
  type: "check" | "pick" | "rate";
  instructions: string;
  criteria?: string | string[] | null;
  options?: Record<string, string | null>;
  levels?: string[];
}

/** A label the reviewer can give: the key that gives it, the value sent, and its words. */
export interface LabelChoice {
  /** One keystroke, or null past the keys there are (the button still works). */
  key: string | null;
  value: string | boolean;
  text: string;
}

/** The key that skips; never a label's key. */
export const SKIP_KEY = "s";

/** Keys of options and levels, in order: 1–9, then a–z without `s` (skip). */
export const LABEL_KEYS: readonly string[] = [
  ..."123456789",
  ..."abcdefghijklmnopqrstuvwxyz".replace(SKIP_KEY, ""),
];

/** The labels of a question, each with its key: y / n for a check; 1–9 then a–z for options or levels. */
export function labelChoices(q: ReviewQuestion): LabelChoice[] {
  if (q.type === "check")
    return [
      { key: "y", value: true, text: "yes" },
      { key: "n", value: false, text: "no" },
    ];
  const labels = q.type === "pick" ? Object.keys(q.options ?? {}) : (q.levels ?? []);
  return labels.map((l, i) => ({ key: LABEL_KEYS[i] ?? null, value: l, text: l }));
}

/** A label as the list shows it (a check's true / false as yes / no). */
export function labelText(label: string | boolean | null): string {
  if (label === null) return "—";
  if (typeof label === "boolean") return label ? "yes" : "no";
  return label;
}

/** What a rule keeps, in words: `abstained, confidence below 0.8, and 1 % of the rest`. */
export function whenText(w: {
  abstained: boolean;
  below_confidence: number | null;
  sample_rate: number;
}): string {
  const parts: string[] = [];
  if (w.abstained) parts.push("abstained");
  if (w.below_confidence !== null) parts.push(`confidence below ${w.below_confidence}`);
  const rate = `${Number((w.sample_rate * 100).toPrecision(3))} %`;
  if (w.sample_rate > 0) parts.push(parts.length ? `and ${rate} of the rest` : `${rate} of the decides`);
  return parts.join(", ");
}

/** Where a rule's loop stands (the API's `loop.status`). */
export type LoopStatus = "none" | "evaluating" | "fitting" | "fitted" | "applied" | "failed";

/** What the loop's status means to the reviewer. */
export const LOOP_TEXT: Readonly<Record<LoopStatus, string>> = {
  none: "No evaluation made from the labels yet.",
  evaluating: "The evaluation of the labelled items is running; a calibration is fitted when it is done.",
  fitting: "The evaluation is done; a calibration is being fitted on its labels.",
  fitted: "A calibration was fitted on the labels: compare it with what answers now, then apply it or not.",
  applied: "The calibration fitted on the labels answers this question now.",
  failed: "The last evaluation or fit did not finish.",
};

/** What a refused review call means, said before the API's own sentence. */
export const REVIEW_LEADS: Readonly<Record<string, string>> = {
  too_few_labels: "Not enough labels yet to make an evaluation and calibrate.",
  review_rule_limit_reached: "Your account has as many review rules as it may have.",
  evaluations_in_progress: "Too many evaluations are running on your account.",
  evaluation_storage_full: "Your account's evaluation storage is full.",
  calibration_limit_reached: "Your account has as many calibrations as it may have.",
};

/** Whether a keystroke is a plain key (no Ctrl, Alt or Meta) typed outside a text field. */
export function isPlainKey(e: {
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  targetTag: string;
}): boolean {
  if (e.ctrlKey || e.altKey || e.metaKey) return false;
  return !["INPUT", "TEXTAREA", "SELECT"].includes(e.targetTag) && e.key.length === 1;
}
