import { z } from "@hono/zod-openapi";
import { ACCOUNT_ID_PATTERN } from "../../../schema/ids";
import { isScope, SCOPES } from "../../../schema/scopes";
import type { KeyRecord } from "../../stores/keys";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

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
      .array(z.enum(SCOPES))
      .openapi({ description: "Subset of `decide`, `usage:read`, `balance:read`.", example: ["decide"] }),
    account_id: z
      .string()
      .regex(ACCOUNT_ID_PATTERN)
      .openapi({ description: "Owning account.", example: "acc_01JD0000000000000000000000" }),
    created: z.number().int().openapi({ description: "Unix time in seconds.", example: 1763683200 }),
  })
  .openapi("Key");

/** A Key object. */
export type KeyObject = z.infer<typeof KeyObjectSchema>;

/** The Key object of a key record. */
export function keyObject(k: KeyRecord): KeyObject {
  return {
    object: "key",
    id: k.id,
    prefix: k.prefix,
    mode: k.mode,
    scopes: k.scopes.filter(isScope),
    account_id: k.accountId,
    created: k.created,
  };
}

/** GET /v1/key: the Key object of the calling key; any valid key, any scopes. */
export const getKey = endpoint(
  {
    method: "get",
    path: "/v1/key",
    operationId: "getKey",
    summary: "The calling API key",
    auth: "any-key",
    responses: { 200: jsonResponse("The Key object of the calling key.", KeyObjectSchema) },
    errors: [],
  },
  function getKeyHandler(c) {
    return c.json(keyObject(c.var.apiKey), 200);
  },
);
