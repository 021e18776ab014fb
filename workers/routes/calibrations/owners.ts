import type { ErrorCode } from "../../../schema/errors";
import { orMaintenance } from "../../accounts/unavailable";
import type { TwinCallers } from "../define";

/**
 * Who calls a calibration route: the account of any key with `decide`, live or test, or of the console session;
 * a store outage while serving one is 503 `maintenance`, nothing changed.
 */
export const CALIBRATION_CALLERS: TwinCallers<string> = {
  api: (c) => c.var.apiKey.accountId,
  console: (c) => c.var.session.accountId,
  guard: (run) => orMaintenance("calibrations", run),
};

/** Codes of createCalibration after its auth. */
export const CREATE_ERRORS: readonly ErrorCode[] = [
  "invalid_json",
  "duplicate_key",
  "unsupported_media_type",
  "body_too_large",
  "invalid_header",
  "unknown_field",
  "missing_field",
  "invalid_type",
  "invalid_value",
  "evaluation_not_found",
  "evaluation_not_done",
  "evaluation_outdated",
  "too_few_labels",
  "calibration_no_gain",
  "calibration_limit_reached",
];
/** Codes of previewCalibration: createCalibration's but the cap (nothing is stored). */
export const PREVIEW_ERRORS: readonly ErrorCode[] = CREATE_ERRORS.filter(
  (c) => c !== "calibration_limit_reached",
);
/** Codes of the list routes (their query parameters). */
export const LIST_ERRORS: readonly ErrorCode[] = ["unknown_field", "invalid_value"];
