import { KeyListObject } from "../../../../schema/console";
import { keyJson } from "../../../accounts/key-management";
import { orMaintenance } from "../../../accounts/unavailable";
import { listApiKeys } from "../../../stores/api-keys";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** GET /v1/console/keys: the account's keys with their display prefix (never a secret). */
export const listKeys = endpoint(
  {
    method: "get",
    path: "/v1/console/keys",
    operationId: "listKeys",
    summary: "List the account's API keys",
    auth: "session",
    responses: { 200: jsonResponse("The keys, newest first (revoked ones too).", KeyListObject) },
    errors: [],
  },
  async function listKeysHandler(c) {
    const keys = await orMaintenance("keys", () => listApiKeys(c.var.db, c.var.session.accountId));
    return c.json({ object: "list" as const, data: keys.map(keyJson) }, 200);
  },
);
