import type { ValidatedQuestion } from "../../schema/decide";
import { isJsonObject } from "../../schema/json";
import { readJsonText } from "../../schema/json-text";
import { wordCounts } from "../../schema/learned/features";
import { renderState } from "../../schema/render";
import { questionDefinition } from "../decide/question-fingerprint";
import { validateDecideRequest } from "../decide/validate";
import { ApiError } from "../errors";
import type { Expected } from "../evaluations/metrics";
import type { Database } from "../stores/db";
import { listItems } from "../stores/evaluation-items";
import type { Labelled } from "./fit";

/** Items read per query: bounded memory for the largest evaluation (1,000 items of up to 256 KiB). */
const PAGE = 50;

/** One question's labelled answers in an evaluation, in item order. */
export interface QuestionLabels {
  /** The question as written in the first item that has it (every other item agrees). */
  question: ValidatedQuestion;
  definition: string;
  items: Labelled[];
}

const invalidQuestion = (message: string) => new ApiError("invalid_value", { param: "question", message });

/** Index of an expected label among the question's outcomes (check: yes 0, no 1). */
function outcomeIndex(q: ValidatedQuestion, expected: Expected): number {
  if (q.type === "check") return expected === true ? 0 : 1;
  if (q.type === "pick") return q.options.findIndex((o) => o.label === expected);
  return q.levels.indexOf(expected as string);
}

interface StoredAnswers {
  answers: Array<{ id: string; distribution?: number[] }>;
}

/**
 * Reads an evaluation's items page by page and keeps, for `questionId`, its definition and each item's unrounded
 * distribution with the expected outcome and the words of its rendered state (issue 49). 422 `invalid_value` (`question`) when no item has the question or two
 * define it differently; 422 `evaluation_outdated` when an item was scored without its distribution.
 */
export async function questionLabels(
  db: Database,
  evaluationId: string,
  questionId: string,
): Promise<QuestionLabels> {
  let first: { question: ValidatedQuestion; definition: string } | null = null;
  const items: Labelled[] = [];
  for (let from = 0; ; from += PAGE) {
    const page = await listItems(db, evaluationId, from, PAGE);
    for (const row of page) {
      const request = validateDecideRequest(readJsonText(row.request));
      const q = request.questions.find((x) => x.id === questionId);
      if (!q) continue;
      const definition = questionDefinition(q);
      first ??= { question: q, definition };
      if (definition !== first.definition)
        throw invalidQuestion(
          `Items of this evaluation define \`${questionId}\` differently (item ${row.idx} differs from the first that has it): a calibration is for one question as written.`,
        );
      const expected = readJsonText(row.expected);
      const want = isJsonObject(expected) ? expected.entries.find(([k]) => k === questionId)?.[1] : undefined;
      if (want === undefined || row.answers === null) continue;
      const stored = JSON.parse(row.answers) as StoredAnswers;
      const distribution = stored.answers.find((a) => a.id === questionId)?.distribution;
      if (!distribution)
        throw new ApiError("evaluation_outdated", {
          param: "evaluation",
          message:
            "This evaluation was scored before answers kept their unrounded distributions: create it again with the same items, then calibrate on the new one.",
        });
      // The state as the engine read it (rendered, as billed): what a state-reading calibration learns from.
      items.push({
        p: distribution,
        y: outcomeIndex(q, want as Expected),
        words: wordCounts(renderState(request.state)),
      });
    }
    if (page.length < PAGE) break;
  }
  if (!first) throw invalidQuestion(`No item of the evaluation has a question \`${questionId}\`.`);
  return { ...first, items };
}

/**
 * The weight rows a fit of `questionId` solves for (a check 1, a pick or rate one per option or level), read from
 * the evaluation's first item (one row): what the in-request bound scales by. Null when that item does not ask it.
 */
export async function questionRows(
  db: Database,
  evaluationId: string,
  questionId: string,
): Promise<number | null> {
  const [row] = await listItems(db, evaluationId, 0, 1);
  if (!row) return null;
  const q = validateDecideRequest(readJsonText(row.request)).questions.find((x) => x.id === questionId);
  if (!q) return null;
  return q.type === "check" ? 1 : q.type === "pick" ? q.options.length : q.levels.length;
}
