import { type ApiError, errorBody } from "../errors";
import type { LineOutcome } from "../stores/batch-lines";
import type { BatchRow } from "../stores/batch-rows";
import type { StoredLine } from "./validate-line";

/** A line's result line: `{"custom_id","status","body"}` or `{"custom_id","status","error"}` (JSON text). */
export const resultLine = (customId: string, status: number, member: "body" | "error", json: string) =>
  `{"custom_id":${JSON.stringify(customId)},"status":${status},"${member}":${json}}`;

/** A line finished with `err` (uncharged): its result line and what its usage event needs. */
export function errorOutcome(b: BatchRow, attempt: string, stored: StoredLine, err: ApiError): LineOutcome {
  return {
    status: err.status,
    result: resultLine(stored.custom_id, err.status, "error", JSON.stringify(errorBody(err, attempt).error)),
    model: stored.model,
    inputTokens: stored.tokens.input_tokens,
    stateTokens: stored.tokens.state_tokens,
    questionTokens: stored.tokens.question_tokens,
    chargeMicroCents: 0,
    unitPrice: 0,
    tier: b.mode === "test" ? "test" : null,
  };
}

/** The error code of a finished line's status (a line finishes with 200, 429 `tokens_per_minute` or 500). */
export function lineErrorCode(status: number): string | null {
  if (status === 200) return null;
  return status === 429 ? "tokens_per_minute" : "internal_error";
}
