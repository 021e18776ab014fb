import { z } from "@hono/zod-openapi";
import { ConsoleKeyObject } from "../../../../schema/console";
import { currentAccount } from "../../../accounts/current-account";
import {
  accountCaps,
  findKey,
  keyJson,
  parseLimit,
  parseScopes,
  saveKey,
} from "../../../accounts/key-management";
import { BODY_ERRORS, parserRule, readConsoleBody, stringRule } from "../../../http/console-body";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

export const KeyPathParams = z.object({
  id: z.string().openapi({ example: "key_01JD0000000000000000000000" }),
});

/** PATCH /v1/console/keys/{id}: body with any of `name`, `scopes`, `rpm_limit`, `tpm_limit` (null = the cap). */
export const updateKey = endpoint(
  {
    method: "patch",
    path: "/v1/console/keys/{id}",
    operationId: "updateKey",
    summary: "Change a key's name, scopes or limits",
    auth: "session+csrf",
    request: { params: KeyPathParams },
    responses: { 200: jsonResponse("The changed key.", ConsoleKeyObject) },
    errors: [...BODY_ERRORS, "key_not_found"],
  },
  async function updateKeyHandler(c) {
    const accountId = c.var.session.accountId;
    // The body first (the spec's order of checks: 400/413/422 before 404), then the key.
    const { fields } = await readConsoleBody(c, {
      name: stringRule(1, 64, false),
      scopes: parserRule(parseScopes),
      rpm_limit: parserRule((v) => parseLimit(v, "rpm_limit", Number.MAX_SAFE_INTEGER)),
      tpm_limit: parserRule((v) => parseLimit(v, "tpm_limit", Number.MAX_SAFE_INTEGER)),
    });
    const key = await findKey(c.var.db, accountId, c.req.param("id") ?? "");
    const caps = accountCaps(await currentAccount(c.var, accountId), key.mode);
    const saved = await saveKey(c.var.db, {
      ...key,
      name: (fields.name as string | undefined) ?? key.name,
      scopes: (fields.scopes as string[] | undefined) ?? key.scopes,
      rpmLimit:
        fields.rpm_limit === undefined ? key.rpmLimit : parseLimit(fields.rpm_limit, "rpm_limit", caps.rpm),
      tpmLimit:
        fields.tpm_limit === undefined ? key.tpmLimit : parseLimit(fields.tpm_limit, "tpm_limit", caps.tpm),
    });
    return c.json(keyJson(saved), 200);
  },
);
