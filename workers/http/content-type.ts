import { BATCH_CONTENT_TYPES } from "../../schema/batches";
import { ApiError } from "../errors";

/**
 * True when a `content-type` value is `application/json` (any case) with optional parameters; a `charset`
 * parameter, if given, must be UTF-8 since the body must be UTF-8 JSON.
 */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const [type, ...params] = value.split(";");
  if (type?.trim().toLowerCase() !== "application/json") return false;
  for (const p of params) {
    const eq = p.indexOf("=");
    if (eq === -1) continue;
    if (p.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    const charset = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") return false;
  }
  return true;
}

/** 400 `unsupported_media_type` when a request with a body lacks `application/json`. */
export function checkContentType(value: string | undefined, bodyBytes: number): void {
  if (bodyBytes === 0) return; // no body: the empty body is reported as `invalid_json`
  if (!isJsonContentType(value)) {
    throw new ApiError("unsupported_media_type", {
      param: "content-type",
      message: "Send the body as `content-type: application/json`.",
    });
  }
}

/** 400 `unsupported_media_type` unless `application/jsonl` or `application/x-ndjson`, with an optional UTF-8 charset. */
export function checkBatchContentType(value: string | undefined): void {
  const [type, ...params] = (value ?? "").split(";");
  const charset = params
    .map((p) => p.split("="))
    .find(([k]) => k?.trim().toLowerCase() === "charset")?.[1]
    ?.trim()
    .replace(/^"(.*)"$/, "$1")
    .toLowerCase();
  const ok =
    (BATCH_CONTENT_TYPES as readonly string[]).includes(type?.trim().toLowerCase() ?? "") &&
    (charset === undefined || charset === "utf-8" || charset === "utf8");
  if (!ok)
    throw new ApiError("unsupported_media_type", {
      param: "content-type",
      message: "Send the lines as `content-type: application/jsonl` (or application/x-ndjson).",
    });
}
