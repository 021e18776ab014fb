import type { CalibrationRow } from "../stores/calibrations";

const seconds = (ms: number | null) => (ms === null ? "null" : String(Math.floor(ms / 1000)));
const str = (s: string) => JSON.stringify(s);

/**
 * The Calibration object's JSON text (schema/calibrations.ts): the question spliced in as written. A preview
 * (`CalibrationPreview`) has no id and its own object name.
 */
export function calibrationJson(r: CalibrationRow, preview = false): string {
  return `{${[
    `"id":${preview ? "null" : str(r.id)}`,
    `"object":${preview ? '"calibration_preview"' : '"calibration"'}`,
    `"model":${str(r.model)}`,
    `"evaluation":${str(r.evaluationId)}`,
    `"question_id":${str(r.questionId)}`,
    `"question":${r.question}`,
    `"method":${str(r.method)}`,
    `"features":${r.features ?? "null"}`,
    `"map":${JSON.stringify({ temperature: r.map.temperature, bias: r.map.bias })}`,
    `"n":${r.n}`,
    `"metrics":${r.metrics}`,
    `"mode":${str(r.mode)}`,
    `"active":${r.active}`,
    `"created":${seconds(r.createdAt)}`,
    `"deactivated":${seconds(r.deactivatedAt)}`,
  ].join(",")}}`;
}

/** A page of calibrations as the list's JSON text. */
export function calibrationListJson(rows: readonly CalibrationRow[], hasMore: boolean): string {
  return `{"object":"list","data":[${rows.map((r) => calibrationJson(r)).join(",")}],"has_more":${hasMore}}`;
}
