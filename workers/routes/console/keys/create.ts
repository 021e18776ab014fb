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
import { ApiError } from "../../../errors";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { BODY_ERRORS, readJsonObject, stringField } from "../body";

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
    const body = await readJsonObject(c, {
      allowed: ["name", "mode", "scopes", "rpm_limit", "tpm_limit", "expires_at"],
      required: ["name", "mode"],
    });
    const name = stringField(body, "name", 1, 64);
    const mode = stringField(body, "mode", 1, 8);
    if (mode !== "live" && mode !== "test")
      throw new ApiError("invalid_value", { param: "mode", message: "`mode` is `live` or `test`." });
    const account = await currentAccount(c.var, c.var.session.accountId);
    const caps = accountCaps(account, mode);
    const { key, secret } = await makeKey(c.var.db, account.id, {
      name,
      mode,
      scopes: body.scopes === undefined ? [...SCOPES] : parseScopes(body.scopes),
      rpmLimit: body.rpm_limit === undefined ? null : parseLimit(body.rpm_limit, "rpm_limit", caps.rpm),
      tpmLimit: body.tpm_limit === undefined ? null : parseLimit(body.tpm_limit, "tpm_limit", caps.tpm),
      expiresAt: parseExpiry(body.expires_at),
    });
    c.header("cache-control", "no-store");
    return c.json({ ...keyJson(key), secret }, 201);
  },
);
