import type { CalibrationRow } from "../stores/calibrations";

const seconds = (ms: number | null) => (ms === null ? "null" : String(Math.floor(ms / 1000)));
const str = (s: string) => JSON.stringify(s);

/**
 * The Calibration object's JSON text (schema/calibrations.ts): the question spliced in as written; the fitted
 * fields null while `fitting` and when `failed`. A preview (`CalibrationPreview`) has no id and its own object name.
 */
export function calibrationJson(r: CalibrationRow, preview = false): string {
  return `{${[
    `"id":${preview ? "null" : str(r.id)}`,
    `"object":${preview ? '"calibration_preview"' : '"calibration"'}`,
    `"model":${str(r.model)}`,
    `"evaluation":${str(r.evaluationId)}`,
    `"question_id":${str(r.questionId)}`,
    `"question":${r.question ?? "null"}`,
    `"method":${r.method === null ? "null" : str(r.method)}`,
    `"features":${r.features ?? "null"}`,
    `"map":${r.map === null ? "null" : JSON.stringify({ temperature: r.map.temperature, bias: r.map.bias })}`,
    `"n":${r.n ?? "null"}`,
    `"metrics":${r.metrics ?? "null"}`,
    `"mode":${str(r.mode)}`,
    `"status":${str(r.status)}`,
    `"active":${r.active}`,
    `"created":${seconds(r.createdAt)}`,
    `"deactivated":${seconds(r.deactivatedAt)}`,
    `"error":${r.error ?? "null"}`,
  ].join(",")}}`;
}

/** A page of calibrations as the list's JSON text. */
export function calibrationListJson(rows: readonly CalibrationRow[], hasMore: boolean): string {
  return `{"object":"list","data":[${rows.map((r) => calibrationJson(r)).join(",")}],"has_more":${hasMore}}`;
}
