import { SignInCodeObject } from "../../../../schema/console";
import { sendSignInCode } from "../../../accounts/email-sign-in";
import { consoleSecret } from "../../../accounts/unavailable";
import { BODY_ERRORS, emailRule, readConsoleBody } from "../../../http/console-body";
import { clientNetwork } from "../../../limits/client-network";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** POST /v1/console/auth/codes: e-mails a sign-in code (body `{email}`). */
export const sendSignInCodeRoute = endpoint(
  {
    method: "post",
    path: "/v1/console/auth/codes",
    operationId: "sendSignInCode",
    summary: "E-mail a console sign-in code",
    description:
      "Sends an 8-digit code, valid 10 minutes, once; codes sent earlier stay valid. At most 5 codes an hour per address and 30 per client network (IPv4 /24, IPv6 /48) → 429 `email_codes_per_hour`; the service sends at most 1,000 sign-in e-mails an hour, 300 of them kept for addresses that already have an account → 429 `sign_in_emails_per_hour`.",
    auth: "console-open",
    responses: { 202: jsonResponse("The code was sent.", SignInCodeObject) },
    errors: [...BODY_ERRORS, "email_codes_per_hour", "sign_in_emails_per_hour"],
  },
  async function sendSignInCodeHandler(c) {
    const { fields } = await readConsoleBody(c, { email: emailRule() });
    const email = fields.email as string;
    const secret = consoleSecret(c.env);
    const expiresAt = await sendSignInCode(
      c.var,
      secret,
      email,
      clientNetwork(c.req.header("cf-connecting-ip")),
    );
    return c.json({ object: "sign_in_code" as const, email, expires_at: expiresAt.toISOString() }, 202);
  },
);
