import type { MiddlewareHandler } from "hono";
import { ACCOUNT_ID_PATTERN } from "../../schema/ids";
import { ApiError } from "../errors";
import type { AppEnv } from "./context";

/** The header naming the account an operator acts for (TEMPORARY console auth, see RouteAuth `console-operator`). */
export const ACT_AS_HEADER = "x-svc-act-as-account";

/**
 * TEMPORARY, until the console session middleware lands: after `requireAdminToken`, sets `c.var.session`
 * to the account named in `x-svc-act-as-account` (401 `invalid_session` when missing or malformed), exactly
 * where the session middleware will set it, so console handlers read `c.var.session.accountId` either way.
 */
export function actAsAccount(): MiddlewareHandler<AppEnv> {
  return async function actAsAccountMiddleware(c, next) {
    const accountId = c.req.header(ACT_AS_HEADER);
    if (!accountId || !ACCOUNT_ID_PATTERN.test(accountId))
      throw new ApiError("invalid_session", { message: `Send \`${ACT_AS_HEADER}\` with an account id.` });
    c.set("session", { accountId });
    await next();
  };
}
