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
