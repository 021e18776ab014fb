import { CreatedKeyObject } from "../../../../schema/console";
import { SCOPES } from "../../../../schema/scopes";
import { currentAccount } from "../../../accounts/current-account";
import {
  accountCaps,
  keyJson,
  createKey as makeKey,
  parseExpiry,
  parseLimit,
  parseScopes,
} from "../../../accounts/key-management";
import { BODY_ERRORS, oneOfRule, parserRule, readConsoleBody, stringRule } from "../../../http/console-body";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/**
 * POST /v1/console/keys: body `{name, mode, scopes?, rpm_limit?, tpm_limit?, expires_at?}`. Scopes default to
 * all three; limits above the account caps → 422 `invalid_value` (never clamped). The secret is in this
 * answer only.
 */
export const createKey = endpoint(
  {
    method: "post",
    path: "/v1/console/keys",
    operationId: "createKey",
    summary: "Create an API key (its secret shown once)",
    auth: "session+csrf",
    responses: { 201: jsonResponse("The key with its secret.", CreatedKeyObject) },
    errors: BODY_ERRORS,
  },
  async function createKeyHandler(c) {
    // Every field by the spec's precedence first; the limits against the account's caps once it is read.
    const { fields } = await readConsoleBody(c, {
      name: stringRule(1, 64),
      mode: oneOfRule(["live", "test"]),
      scopes: parserRule(parseScopes),
      rpm_limit: parserRule((v) => parseLimit(v, "rpm_limit", Number.MAX_SAFE_INTEGER)),
      tpm_limit: parserRule((v) => parseLimit(v, "tpm_limit", Number.MAX_SAFE_INTEGER)),
      expires_at: parserRule((v) => parseExpiry(v)),
    });
    const mode = fields.mode as "live" | "test";
    const account = await currentAccount(c.var, c.var.session.accountId);
    const caps = accountCaps(account, mode);
    const { key, secret } = await makeKey(c.var.db, account.id, {
      name: fields.name as string,
      mode,
      scopes: (fields.scopes as string[] | undefined) ?? [...SCOPES],
      rpmLimit: fields.rpm_limit === undefined ? null : parseLimit(fields.rpm_limit, "rpm_limit", caps.rpm),
      tpmLimit: fields.tpm_limit === undefined ? null : parseLimit(fields.tpm_limit, "tpm_limit", caps.tpm),
      expiresAt: (fields.expires_at as number | null | undefined) ?? null,
    });
    c.header("cache-control", "no-store");
    return c.json({ ...keyJson(key), secret }, 201);
  },
);
