import { constantTimeEqual } from "../../schema/constant-time";
import { sha256Hex } from "../accounts/secrets";
import { csrfTokenFor } from "../accounts/sessions";
import { ApiError } from "../errors";

/** Spec: `x-svc-csrf` is 32 to 64 characters. */
const CSRF_LENGTH = { min: 32, max: 64 };

/**
 * 403 `csrf_failed` unless `sent` is the session's CSRF token. Digests of both are compared in constant time,
 * so neither the expected value nor its length leaks through timing.
 */
export async function checkCsrf(
  sent: string | undefined,
  secret: string,
  sessionSha256: string,
): Promise<void> {
  const fail = () => new ApiError("csrf_failed", { message: "Send the session's `x-svc-csrf` token." });
  if (sent === undefined || sent.length < CSRF_LENGTH.min || sent.length > CSRF_LENGTH.max) throw fail();
  const expected = await csrfTokenFor(secret, sessionSha256);
  if (!constantTimeEqual(await sha256Hex(sent), await sha256Hex(expected))) throw fail();
}
