/** Shapes of the question routes (issue 52): each question the account asks, its answers over time, its drift. */

/** A question of the account, as written (its calibration fingerprint). */
export interface Question {
  /** `qst_` + 26 characters from the question's fingerprint (the version left out). */
  id: string;
  object: "question";
  mode: "live" | "test";
  type: "check" | "pick" | "rate";
  /** type, instructions, criteria, options or levels, as written. */
  question: Record<string, unknown>;
  first_asked: string;
  last_asked: string;
  count_7d: number;
  /** Exact versions that answered it, latest first. */
  versions: string[];
  calibration: string | null;
  review_rule: string | null;
}

export interface QuestionList {
  object: "list";
  data: Question[];
  has_more: boolean;
}

/** Query of `questions.series`: the usage report's range (by day up to 93 days, by hour up to 7). */
export interface QuestionSeriesQuery {
  /** `YYYY-MM-DD`, first UTC date included. */
  start: string;
  /** `YYYY-MM-DD`, first UTC date not included. */
  end: string;
  granularity?: "day" | "hour";
}

/** One bucket; an empty one has count 0 and nulls. */
export interface QuestionBucket {
  start: string;
  /** The version with most answers in the bucket. */
  model: string | null;
  models: Record<string, number>;
  count: number;
  /** Share per option (pick), per level (rate), of `yes` / `no` (check). */
  mix: Record<string, number> | number[] | null;
  /** Check: mean P(yes), and the share of answers per tenth of P(yes). */
  mean_p_yes?: number | null;
  histogram?: number[] | null;
  mean_confidence: number | null;
  abstain_rate: number | null;
}

export interface QuestionSeries {
  object: "question_series";
  question: string;
  type: "check" | "pick" | "rate";
  start: string;
  end: string;
  granularity: "day" | "hour";
  data: QuestionBucket[];
}

export interface DriftWindow {
  start: string;
  end: string;
  count: number;
}

/** A question's drift on one exact version (also the `question.drifted` event's `data.object`). */
export interface QuestionDrift {
  object: "question_drift";
  question: string;
  model: string | null;
  statistic: "jensen_shannon_distance";
  value: number | null;
  threshold: number;
  /** `calibration`: the active calibration's evaluation (start and end null); else a week of answers. */
  reference: {
    start: string | null;
    end: string | null;
    count: number;
    source: "first_week" | "reset" | "calibration";
    calibration: string | null;
    complete: boolean;
  };
  current: DriftWindow;
  drifted: boolean;
}

/** Body of `questions.updateDrift`: a threshold in (0, 1], a reset of the reference week, or both. */
export interface UpdateQuestionDriftRequest {
  threshold?: number;
  reset_reference?: true;
}
