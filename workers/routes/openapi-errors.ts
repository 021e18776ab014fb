import { z } from "@hono/zod-openapi";

/** The error envelope (spec: Errors → Envelope) as an OpenAPI component. */
export const ErrorSchema = z
  .object({
    error: z.object({
      type: z.string().openapi({ description: "Class of error; one to one with the HTTP status." }),
      code: z.string().openapi({ description: "Machine-readable reason (schema/errors.ts)." }),
      message: z.string().openapi({ description: "English text for people; not to be parsed." }),
      param: z.string().optional().openapi({ description: "The field, query or header that caused it." }),
      request_id: z.string().openapi({ description: "Same as `x-request-id`." }),
    }),
  })
  .openapi("Error");

const errorContent = { "application/json": { schema: ErrorSchema } };

/** The error responses every API-key route shares (authentication, then the account's state). */
export const API_KEY_ERROR_RESPONSES = {
  401: { description: "Missing, invalid, revoked or expired key.", content: errorContent },
  403: { description: "Account suspended.", content: errorContent },
} as const;
