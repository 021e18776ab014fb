import type { ErrorCode } from "../../../schema/errors";
import { orMaintenance } from "../../accounts/unavailable";
import { JSON_BODY_ERRORS } from "../../http/body-errors";
import type { QuestionOwner } from "../../questions/service";
import type { TwinCallers } from "../define";

/**
 * Who calls a question route: any key of the account with `decide`, which sees its own mode's questions (a test key
 * never moves or reads a live question's numbers); or the console session, which sees the live ones. A store outage
 * while serving one is 503 `maintenance`.
 */
export const QUESTION_CALLERS: TwinCallers<QuestionOwner> = {
  api: (c) => ({ accountId: c.var.apiKey.accountId, mode: c.var.apiKey.mode }),
  console: (c) => ({ accountId: c.var.session.accountId, mode: "live" }),
  guard: (run) => orMaintenance("questions", run),
};

/** Codes of the series after its auth: the usage report's 422s, then an unknown question. */
export const SERIES_ERRORS: readonly ErrorCode[] = [
  "unknown_field",
  "missing_field",
  "invalid_value",
  "question_not_found",
];

/** Codes of a drift change after its auth. */
export const DRIFT_CHANGE_ERRORS: readonly ErrorCode[] = [...JSON_BODY_ERRORS, "question_not_found"];
