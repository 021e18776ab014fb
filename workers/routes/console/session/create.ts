import { ConsoleSessionObject } from "../../../../schema/console";
import { verifySignInCode } from "../../../accounts/email-sign-in";
import { startSession } from "../../../accounts/sessions";
import { consoleSecret, orMaintenance } from "../../../accounts/unavailable";
import { BODY_ERRORS, emailRule, readConsoleBody, stringRule } from "../../../http/console-body";
import { clientNetwork } from "../../../limits/client-network";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { sessionBody, setSessionCookie } from "./cookie";

/**
 * POST /v1/console/sessions (`createSession`): signs in with an e-mailed code (body `{email, code}`); a new
 * address gets a new account. Answers the session cookie and the `csrf_token`.
 */
export const createSession = endpoint(
  {
    method: "post",
    path: "/v1/console/sessions",
    operationId: "createSession",
    summary: "Sign in with an e-mailed code",
    description:
      "A wrong or expired code → 401 `invalid_code` (the 5th wrong try from a client network too); from then on the code is unusable from that network → 401 `code_attempts_exceeded`, and after 10 tries from all networks together it is unusable everywhere (ask for a new code). Tries per client network (IPv4 /24, IPv6 /48): 20, then each waits twice as long (30 s up to an hour) → 429 `sign_in_tries_per_network`. Sets `__Host-svc_session` and returns `csrf_token`.",
    auth: "console-open",
    responses: { 201: jsonResponse("Signed in; the session cookie is set.", ConsoleSessionObject) },
    errors: [
      ...BODY_ERRORS,
      "invalid_code",
      "code_attempts_exceeded",
      "account_suspended",
      "sign_in_tries_per_network",
    ],
  },
  async function createSessionHandler(c) {
    const { fields } = await readConsoleBody(c, { email: emailRule(), code: stringRule(1, 64) });
    const email = fields.email as string;
    const code = fields.code as string;
    const secret = consoleSecret(c.env);
    const network = clientNetwork(c.req.header("cf-connecting-ip"));
    const account = await verifySignInCode(c.var, secret, email, code, network);
    const session = await orMaintenance("sessions", () => startSession(c.var.db, account.id, "cookie"));
    setSessionCookie(c, session.token);
    c.header("cache-control", "no-store");
    return c.json(await sessionBody(secret, session, account.email), 201);
  },
);
