import type { ErrorCode } from "../../schema/errors";

/**
 * Codes any JSON body of a resource route can raise before its own checks: the front door (strict JSON, media type,
 * size, headers), then its schema.
 */
export const JSON_BODY_ERRORS: readonly ErrorCode[] = [
  "invalid_json",
  "duplicate_key",
  "unsupported_media_type",
  "body_too_large",
  "invalid_header",
  "unknown_field",
  "missing_field",
  "invalid_type",
  "invalid_value",
];

/**
 * Codes a decide body can raise in steps 2–6 (front door, schema, model, references and uniqueness, token
 * limits): every route that takes decide bodies (evaluation items, batch lines) declares them.
 */
export const DECIDE_BODY_ERRORS: readonly ErrorCode[] = [
  "invalid_json",
  "duplicate_key",
  "unsupported_media_type",
  "body_too_large",
  "state_too_long",
  "question_too_long",
  "request_too_long",
  "model_not_found",
  "model_retired",
  "unknown_field",
  "missing_field",
  "invalid_type",
  "invalid_value",
  "field_not_allowed",
  "invalid_question_id",
  "too_many_questions",
  "too_many_options",
  "invalid_levels",
  "invalid_min_confidence",
  "duplicate_label",
  "state_path_not_found",
  "state_not_json",
];
