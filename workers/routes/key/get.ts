import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../middleware/context";
import type { KeyRecord } from "../../stores/keys";
import { API_KEY_ERROR_RESPONSES } from "../openapi-errors";

/** Key object (spec: Resources → Key object). Never carries the secret. */
export const KeyObjectSchema = z
  .object({
    object: z.literal("key").openapi({ description: "Always `key`.", example: "key" }),
    id: z.string().openapi({ description: "Key id.", example: "key_01JD0000000000000000000000" }),
    prefix: z.string().openapi({
      description: "Display prefix: mode prefix plus a few characters.",
      example: "svc_live_AbCd",
    }),
    mode: z.enum(["live", "test"]).openapi({ description: "`live` (billed) or `test` (never billed)." }),
    scopes: z
      .array(z.enum(["decide", "usage:read", "balance:read"]))
      .openapi({ description: "Subset of `decide`, `usage:read`, `balance:read`.", example: ["decide"] }),
    account_id: z
      .string()
      .regex(/^acc_[0-9A-HJKMNP-TV-Z]{26}$/)
      .openapi({ description: "Owning account.", example: "acc_01JD0000000000000000000000" }),
    created: z.number().int().openapi({ description: "Unix time in seconds.", example: 1763683200 }),
  })
  .openapi("Key");

/** A Key object. */
export type KeyObject = z.infer<typeof KeyObjectSchema>;

/** GET /v1/key: any valid key, any scopes (authentication: the front door's route policy). */
export const getKeyRoute = createRoute({
  method: "get",
  path: "/v1/key",
  operationId: "getKey",
  summary: "The calling API key",
  security: [{ bearer: [] }],
  responses: {
    200: {
      description: "The Key object of the calling key.",
      content: { "application/json": { schema: KeyObjectSchema } },
    },
    ...API_KEY_ERROR_RESPONSES,
  },
});

/** The Key object of a key record. */
export function keyObject(k: KeyRecord): KeyObject {
  return {
    object: "key",
    id: k.id,
    prefix: k.prefix,
    mode: k.mode,
    scopes: k.scopes.filter(
      (s): s is KeyObject["scopes"][number] => s === "decide" || s === "usage:read" || s === "balance:read",
    ),
    account_id: k.accountId,
    created: k.created,
  };
}

/** Routes of the key resource. */
export const keyRoutes = new OpenAPIHono<AppEnv>().openapi(getKeyRoute, function getKey(c) {
  return c.json(keyObject(c.get("apiKey")), 200);
});
