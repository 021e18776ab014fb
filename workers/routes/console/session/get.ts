import { ConsoleSessionObject } from "../../../../schema/console";
import { consoleSecret } from "../../../accounts/unavailable";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { sessionBody } from "./cookie";

/**
 * GET /v1/console/session: who is signed in, and the session's `csrf_token` again (a reloaded page asks here
 * instead of keeping it in storage). Using the session slides its expiry.
 */
export const getSession = endpoint(
  {
    method: "get",
    path: "/v1/console/session",
    operationId: "getSession",
    summary: "The signed-in session and its CSRF token",
    auth: "session",
    responses: { 200: jsonResponse("The session.", ConsoleSessionObject) },
    errors: [],
  },
  async function getSessionHandler(c) {
    const s = c.var.session;
    c.header("cache-control", "no-store");
    return c.json(
      await sessionBody(consoleSecret(c.env), { ...s, expiresAt: new Date(s.expiresAt) }, s.email),
      200,
    );
  },
);
