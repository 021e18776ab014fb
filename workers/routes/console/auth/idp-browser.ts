import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { completeBrowserSignIn, startBrowserSignIn } from "../../../accounts/idp-sign-in";
import { consoleSecret } from "../../../accounts/unavailable";
import type { AppEnv } from "../../../context/app-env";
import { ApiError } from "../../../errors";
import { clientNetwork } from "../../../limits/client-network";
import { endpoint } from "../../define";
import { setSessionCookie } from "../session/cookie";

const STATE_COOKIE = "svc_idp_state";
const CALLBACK_PATH = "/v1/console/auth/idp/callback";
/** Where a signed-in browser lands (the console's web app). */
export const CONSOLE_HOME = "/console/";

const redirectUri = (c: Context<AppEnv>) => new URL(CALLBACK_PATH, c.req.url).toString();

/** GET /v1/console/auth/idp/start (`startIdpSignIn`): the browser's OIDC code flow with PKCE and a nonce. */
export const startIdpSignIn = endpoint(
  {
    method: "get",
    path: "/v1/console/auth/idp/start",
    operationId: "startIdpSignIn",
    summary: "Start signing in with the identity provider (browser)",
    description: "Redirects to the provider. Counts toward the 60 sign-ins an hour per client network.",
    auth: "console-open",
    responses: { 302: { description: "To the provider's authorize endpoint." } },
    errors: ["sign_ins_per_hour"],
  },
  async function startIdpSignInHandler(c) {
    const secret = consoleSecret(c.env);
    const flow = await startBrowserSignIn(
      c.var,
      secret,
      clientNetwork(c.req.header("cf-connecting-ip")),
      redirectUri(c),
    );
    setCookie(c, STATE_COOKIE, flow.state, {
      prefix: "host",
      secure: true,
      httpOnly: true,
      sameSite: "Lax",
      path: "/",
      maxAge: 600,
    });
    c.header("cache-control", "no-store");
    return c.redirect(flow.url, 302);
  },
);

const CallbackQuery = z.object({ code: z.string(), state: z.string() });

/** GET /v1/console/auth/idp/callback: the provider sends the browser back here; sets the session cookie. */
export const completeIdpSignIn = endpoint(
  {
    method: "get",
    path: CALLBACK_PATH,
    operationId: "completeIdpSignIn",
    summary: "Finish the browser sign-in (the provider's redirect target)",
    auth: "console-open",
    request: { query: CallbackQuery },
    responses: { 303: { description: "Signed in; to the console, with the session cookie set." } },
    errors: [
      "missing_field",
      "invalid_value",
      "invalid_idp_token",
      "idp_email_unverified",
      "account_suspended",
    ],
  },
  async function completeIdpSignInHandler(c) {
    const secret = consoleSecret(c.env);
    const q = { code: c.req.query("code"), state: c.req.query("state") };
    for (const name of ["code", "state"] as const) {
      const v = q[name];
      if (v === undefined)
        throw new ApiError("missing_field", { param: name, message: `\`${name}\` is required.` });
      if (v.length < 1 || v.length > 2048) throw new ApiError("invalid_value", { param: name });
    }
    const cookieState = getCookie(c, STATE_COOKIE, "host");
    deleteCookie(c, STATE_COOKIE, { prefix: "host", secure: true, path: "/" });
    const { session } = await completeBrowserSignIn(c.var, secret, {
      code: q.code!,
      state: q.state!,
      cookieState,
      redirectUri: redirectUri(c),
    });
    setSessionCookie(c, session.token);
    c.header("cache-control", "no-store");
    return c.redirect(CONSOLE_HOME, 303);
  },
);
