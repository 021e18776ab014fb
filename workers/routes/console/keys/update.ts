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
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { BODY_ERRORS, readJsonObject, stringField } from "../body";

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
    const key = await findKey(c.var.db, accountId, c.req.param("id") ?? "");
    const body = await readJsonObject(c, { allowed: ["name", "scopes", "rpm_limit", "tpm_limit"] });
    const caps = accountCaps(await currentAccount(c.var, accountId), key.mode);
    const saved = await saveKey(c.var.db, {
      ...key,
      name: body.name === undefined ? key.name : stringField(body, "name", 1, 64),
      scopes: body.scopes === undefined ? key.scopes : parseScopes(body.scopes),
      rpmLimit:
        body.rpm_limit === undefined ? key.rpmLimit : parseLimit(body.rpm_limit, "rpm_limit", caps.rpm),
      tpmLimit:
        body.tpm_limit === undefined ? key.tpmLimit : parseLimit(body.tpm_limit, "tpm_limit", caps.tpm),
    });
    return c.json(keyJson(saved), 200);
  },
);
