import type { QuestionRow } from "../stores/questions";

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/**
 * A question as the API shows it; `question` is its definition's JSON text as written (order kept); its newest
 * review rule of the same mode, if any.
 */
export function questionJson(q: QuestionRow): string {
  return `{${[
    `"id":${JSON.stringify(q.id)}`,
    `"object":"question"`,
    `"mode":${JSON.stringify(q.mode)}`,
    `"type":${JSON.stringify(q.type)}`,
    `"question":${q.definition}`,
    `"first_asked":${JSON.stringify(iso(q.firstAsked))}`,
    `"last_asked":${JSON.stringify(iso(q.lastAsked))}`,
    `"count_7d":${q.count7d}`,
    `"versions":${JSON.stringify(q.versions)}`,
    `"calibration":${JSON.stringify(q.calibration)}`,
    `"review_rule":${JSON.stringify(q.reviewRule)}`,
  ].join(",")}}`;
}

/** A page of questions. */
export function questionListJson(rows: readonly QuestionRow[], hasMore: boolean): string {
  return `{"object":"list","data":[${rows.map(questionJson).join(",")}],"has_more":${hasMore}}`;
}

export { iso as isoSeconds };
