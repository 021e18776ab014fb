import type { JsonValue } from "../../schema/json";
import { parseStrictJson } from "../../schema/strict-json";
import { ApiError } from "../errors";

/**
 * Body bytes → order-preserving JSON tree. Not UTF-8, empty, malformed or a lone surrogate escape →
 * 400 `invalid_json`; a repeated key → 400 `duplicate_key` with `param` = the member's JSON pointer.
 */
export function parseJsonBody(bytes: Uint8Array): JsonValue {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError("invalid_json", { message: "The body is not valid UTF-8." });
  }
  const r = parseStrictJson(text);
  if (r.ok) return r.value;
  if (r.code === "duplicate_key") {
    throw new ApiError("duplicate_key", {
      param: r.pointer,
      message: `The body repeats the key at ${r.pointer}.`,
    });
  }
  throw new ApiError("invalid_json", {
    message: r.offset === 0 && text.trim() === "" ? "The body is empty." : `Invalid JSON: ${r.message}`,
  });
}
