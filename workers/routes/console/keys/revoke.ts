import { ConsoleKeyObject } from "../../../../schema/console";
import { keyJson, revokeKey as revoke } from "../../../accounts/key-management";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { KeyPathParams } from "./update";

/** DELETE /v1/console/keys/{id}: revokes the key (within ~1 s everywhere: 401 `revoked_api_key`). */
export const revokeKey = endpoint(
  {
    method: "delete",
    path: "/v1/console/keys/{id}",
    operationId: "revokeKey",
    summary: "Revoke an API key",
    auth: "session+csrf",
    request: { params: KeyPathParams },
    responses: {
      200: jsonResponse("The revoked key (revoking twice keeps the first time).", ConsoleKeyObject),
    },
    errors: ["key_not_found"],
  },
  async function revokeKeyHandler(c) {
    const key = await revoke(c.var.db, c.var.session.accountId, c.req.param("id") ?? "");
    return c.json(keyJson(key), 200);
  },
);
