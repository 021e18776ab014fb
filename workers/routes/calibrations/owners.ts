import type { ErrorCode } from "../../../schema/errors";
import { orMaintenance } from "../../accounts/unavailable";
import type { CalibrationOwner } from "../../calibrations/service";
import { JSON_BODY_ERRORS } from "../../http/body-errors";
import { subjectOf } from "../../limits/key-limits";
import type { TwinCallers } from "../define";

/**
 * Who calls a calibration route: any key of the account with `decide`, live or test, which makes, sees and
 * deletes calibrations of its own mode (issue 50: a test key never changes a live answer); or the console session,
 * which makes live ones (promotes) and sees all. Fits count against the key's requests per minute, the console's
 * as the playground's (a test-mode caller of the account). A store outage while serving one is 503 `maintenance`.
 */
export const CALIBRATION_CALLERS: TwinCallers<CalibrationOwner> = {
  api: (c) => {
    const key = c.var.apiKey;
    return { accountId: key.accountId, mode: key.mode, sees: key.mode, subject: subjectOf(key) };
  },
  console: (c) => {
    const accountId = c.var.session.accountId;
    const subject = { keyId: `playground_${accountId}`, accountId, mode: "test" as const };
    return { accountId, mode: "live", sees: null, subject };
  },
  guard: (run) => orMaintenance("calibrations", run),
};

/** Codes of createCalibration after its auth. */
export const CREATE_ERRORS: readonly ErrorCode[] = [
  ...JSON_BODY_ERRORS,
  "evaluation_not_found",
  "evaluation_not_done",
  "evaluation_outdated",
  "too_few_labels",
  "calibration_no_gain",
  "requests_per_minute",
  "calibration_limit_reached",
];
/** Codes of previewCalibration: createCalibration's but the cap (nothing is stored). */
export const PREVIEW_ERRORS: readonly ErrorCode[] = CREATE_ERRORS.filter(
  (c) => c !== "calibration_limit_reached",
);
/** Codes of the list routes (their query parameters). */
export const LIST_ERRORS: readonly ErrorCode[] = ["unknown_field", "invalid_value"];
