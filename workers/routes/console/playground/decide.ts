import { DecideRequestWire, Decision } from "../../../../schema/decide";
import { currentAccount } from "../../../accounts/current-account";
import { playgroundCaller } from "../../../accounts/playground";
import { DECIDE_ERRORS, serveDecide } from "../../decide/post";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/**
 * POST /v1/console/playground/decide: the decide pipeline itself (steps 2–10 of POST /v1/decide) for the
 * signed-in account as a test-mode caller — free, GPU only, on the account's daily test quota.
 */
export const playgroundDecide = endpoint(
  {
    method: "post",
    path: "/v1/console/playground/decide",
    operationId: "playgroundDecide",
    summary: "Try a decide call from the console (test quota)",
    auth: "session+csrf",
    request: { body: { required: true, content: { "application/json": { schema: DecideRequestWire } } } },
    responses: { 200: jsonResponse("The Decision (tier `test`, charge 0).", Decision) },
    errors: DECIDE_ERRORS,
  },
  async function playgroundDecideHandler(c) {
    const account = await currentAccount(c.var, c.var.session.accountId);
    return serveDecide(c, playgroundCaller(account));
  },
);
