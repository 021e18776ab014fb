/**
 * Shapes of the console's own routes (sign-in, sessions, keys, overview, settings), shared by the Worker's
 * declarations, the OpenAPI document and the tests.
 */
import { z } from "@hono/zod-openapi";
import { ACCOUNT_ID_PATTERN, KEY_ID_PATTERN } from "./ids";
import { SCOPES } from "./scopes";

const accountId = z.string().regex(ACCOUNT_ID_PATTERN).openapi({ example: "acc_01JD0000000000000000000000" });
const dateTime = z.string().openapi({ format: "date-time" });

/** 202 of `sendSignInCode`. */
export const SignInCodeObject = z
  .object({ object: z.literal("sign_in_code"), email: z.string(), expires_at: dateTime })
  .openapi("SignInCode");

/** A console session (cookie set alongside): `createSession` 201 and `getSession` 200. */
export const ConsoleSessionObject = z
  .object({
    object: z.literal("session"),
    account_id: accountId,
    email: z.string().nullable(),
    csrf_token: z
      .string()
      .openapi({ description: "Send as `x-svc-csrf` on every state-changing console route." }),
    expires_at: dateTime,
  })
  .openapi("ConsoleSession");

/** Spec: App session (POST /v1/console/auth/idp/token, 200). */
export const AppSessionObject = z
  .object({
    object: z.literal("app_session"),
    account_id: accountId,
    session_token: z
      .string()
      .regex(/^svc_ses_[A-Za-z0-9_-]{43}$/)
      .openapi({ description: "Shown once; only its SHA-256 is stored." }),
    expires_at: dateTime,
  })
  .openapi("AppSession");

/** A key as the console lists it (never the secret). */
export const ConsoleKeyObject = z
  .object({
    object: z.literal("key"),
    id: z.string().regex(KEY_ID_PATTERN),
    name: z.string().nullable(),
    prefix: z.string().openapi({ description: "Display prefix, e.g. `svc_live_AbCd`." }),
    mode: z.enum(["live", "test"]),
    scopes: z.array(z.enum(SCOPES)),
    rpm_limit: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The key's own limit; null = the account's cap." }),
    tpm_limit: z.number().int().nullable(),
    created: z.number().int(),
    expires_at: dateTime.nullable(),
    revoked_at: dateTime.nullable(),
  })
  .openapi("ConsoleKey");

/** `createKey` 201: the key plus its secret, shown this once. */
export const CreatedKeyObject = ConsoleKeyObject.extend({
  secret: z.string().openapi({ description: "The full key. Shown once; only its SHA-256 is stored." }),
}).openapi("CreatedKey");

export const KeyListObject = z
  .object({ object: z.literal("list"), data: z.array(ConsoleKeyObject) })
  .openapi("KeyList");

/** Account settings: opt-in content logging. */
export const SettingsObject = z
  .object({
    object: z.literal("settings"),
    account_id: accountId,
    content_logging: z.object({
      enabled: z.boolean(),
      retention_days: z.number().int().min(1).max(30).nullable(),
    }),
  })
  .openapi("AccountSettings");
