import { sha256Hex } from "../../schema/hex";
import { hmacHex } from "../../schema/signing";

/** HMAC-SHA-256 as unpadded base64url (43 characters). */
export async function hmacBase64Url(secret: string, message: string): Promise<string> {
  const hex = await hmacHex(secret, message);
  return base64Url(Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16)));
}

/** Unpadded base64url of bytes. */
export function base64Url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** `n` random bytes from the platform's CSPRNG as unpadded base64url. */
export function randomBase64Url(n: number): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(n)));
}

export { hmacHex, sha256Hex };
