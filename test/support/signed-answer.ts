import type { ServerResponse } from "node:http";
import { READY_REQUEST_ID, signAnswer } from "../../schema/signing";

/**
 * Ends `res` with a 200 JSON answer signed as a GPU worker signs it (`schema/signing.ts`): for `origin` (the
 * stand-in's base URL) and `requestId` (the call's; `READY_REQUEST_ID` for `/readyz`).
 */
export async function endSigned(
  res: ServerResponse,
  secret: string,
  origin: string,
  requestId: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const signed = await signAnswer(secret, { origin, requestId, body });
  res.writeHead(200, { "content-type": "application/json", ...headers, ...signed }).end(body);
}

/** `endSigned` for a `/readyz` answer. */
export const endSignedReady = (res: ServerResponse, secret: string, origin: string, body: string) =>
  endSigned(res, secret, origin, READY_REQUEST_ID, body);
