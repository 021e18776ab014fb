import type { MiddlewareHandler } from "hono";
import { constantTimeEqual } from "../../schema/constant-time";
import { sha256Hex } from "../../schema/hex";
import type { AppEnv } from "../context/app-env";
import { ApiError } from "../errors";
import { bearerToken } from "./api-key";

/**
 * Operator routes: `authorization: Bearer <ADMIN_TOKEN>`, else 401 `invalid_api_key`. SHA-256 digests are
 * compared in constant time, so neither the length nor the content of the token leaks through timing.
 */
export function requireAdminToken(): MiddlewareHandler<AppEnv> {
  return async function requireAdminTokenMiddleware(c, next) {
    const sent = bearerToken(c.req.header("authorization"));
    const token = c.env.ADMIN_TOKEN;
    if (!token || !sent || !constantTimeEqual(await sha256Hex(sent), await sha256Hex(token)))
      throw new ApiError("invalid_api_key", { message: "Admin token required." });
    await next();
  };
}
