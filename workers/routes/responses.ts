import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ERRORS, type ErrorCode } from "../../schema/errors";
import type { AppEnv } from "../context/app-env";

const RETRY_TEXT = {
  no: "Do not retry unchanged.",
  after_top_up: "Retry after a top-up.",
  after_retry_after: "Retry after `retry-after` seconds.",
  same_idempotency_key: "Safe to retry with the same idempotency key.",
} as const;

/** The error envelope (spec: Errors → Envelope) whose `code` is one of `codes`. */
function errorEnvelope(codes: readonly ErrorCode[]) {
  return z.object({
    error: z.object({
      type: z
        .literal(ERRORS[codes[0]!].type)
        .openapi({ description: "Class of error; one to one with the HTTP status." }),
      code: z
        .enum(codes as [ErrorCode, ...ErrorCode[]])
        .openapi({ description: "Machine-readable reason; unknown codes are handled by their `type`." }),
      message: z.string().openapi({ description: "English text for people; not to be parsed." }),
      param: z.string().optional().openapi({ description: "The field, query or header that caused it." }),
      request_id: z.string().openapi({ description: "Same as `x-request-id`." }),
      balance_micro_cents: z.number().int().optional().openapi({ description: "402 only." }),
      required_micro_cents: z.number().int().optional().openapi({ description: "402 only." }),
    }),
  });
}

/**
 * OpenAPI error responses for a route's codes, one per status, built from the ONE catalogue
 * (`schema/errors.ts`): each lists its codes, their conditions and retry rules.
 */
export function errorResponses(codes: Iterable<ErrorCode>) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, { description: string; content: Record<string, { schema: z.ZodType }> }> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const lines = list.map(
      (code) => `- \`${code}\`: ${ERRORS[code].description} ${RETRY_TEXT[ERRORS[code].retry]}`,
    );
    out[status] = {
      description: `\`${ERRORS[list[0]!].type}\`\n${lines.join("\n")}`,
      content: { "application/json": { schema: errorEnvelope(list) } },
    };
  }
  return out;
}

/** A JSON success response of a declaration: `responses: { 200: jsonResponse("…", Schema) }`. */
export function jsonResponse(description: string, schema: z.ZodType) {
  return { description, content: { "application/json": { schema } } };
}

/** A JSON answer whose text is already made (spliced as stored, e.g. a question as the customer wrote it). */
export function jsonText(c: Context<AppEnv>, text: string, status: 200 | 201 | 202): Response {
  c.header("content-type", "application/json");
  return c.body(text, status);
}
