import { AppSessionObject } from "../../../../schema/console";
import type { JsonValue } from "../../../../schema/json";
import { exchangeIdToken } from "../../../accounts/idp-sign-in";
import { BODY_ERRORS, patternRule, readConsoleBody, stringRule } from "../../../http/console-body";
import { clientNetwork } from "../../../limits/client-network";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** Spec: three dot-separated base64url parts, at most 4,096 characters. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** `id_token`: 1–4,096 characters, a JWT's three base64url parts. */
const idTokenRule = {
  required: true,
  check: (v: JsonValue) =>
    stringRule(1, 4096).check(v) ??
    (patternRule(JWT_SHAPE, true).check(v) && {
      code: "invalid_value" as const,
      message: "Must be a JWT (three base64url parts).",
    }),
};

/** POST /v1/console/auth/idp/token (`createIdpSession`): an identity provider's ID token → an app session. */
export const createIdpSession = endpoint(
  {
    method: "post",
    path: "/v1/console/auth/idp/token",
    operationId: "createIdpSession",
    summary: "Exchange an identity provider's ID token for an app session",
    description:
      "For native apps. RS256 with the provider's published keys, issuer, audience (any configured client id), expiry (required), nonce when given, verified e-mail. At most 60 sign-ins an hour per client network, counted with `startIdpSignIn`.",
    auth: "console-open",
    responses: { 200: jsonResponse("The app session (its token shown once).", AppSessionObject) },
    errors: [
      ...BODY_ERRORS,
      "invalid_idp_token",
      "idp_email_unverified",
      "account_suspended",
      "sign_ins_per_hour",
    ],
  },
  async function createIdpSessionHandler(c) {
    const { fields } = await readConsoleBody(c, {
      id_token: idTokenRule,
      nonce: stringRule(1, 128, false),
    });
    const idToken = fields.id_token as string;
    const nonce = fields.nonce as string | undefined;
    const { account, session } = await exchangeIdToken(
      c.var,
      idToken,
      nonce,
      clientNetwork(c.req.header("cf-connecting-ip")),
    );
    c.header("cache-control", "no-store");
    return c.json(
      {
        object: "app_session" as const,
        account_id: account.id,
        session_token: session.token,
        expires_at: session.expiresAt.toISOString(),
      },
      200,
    );
  },
);
