import { isJsonObject, type JsonValue } from "./json";

/**
 * Canonical form of a parsed body (spec: idempotency "same body"): object keys in their original order,
 * no insignificant whitespace, strings (keys too) in Unicode NFC, numbers in shortest round-trip form.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "number") return JSON.stringify(value);
  if (typeof value === "string") return JSON.stringify(value.normalize("NFC"));
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isJsonObject(value)) {
    const parts = value.entries.map(([k, v]) => `${JSON.stringify(k.normalize("NFC"))}:${canonicalJson(v)}`);
    return `{${parts.join(",")}}`;
  }
  throw new TypeError("not a JSON value");
}

/** SHA-256 (lower-case hex) of a string's UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The request fingerprint kept in an idempotency record. */
export function requestFingerprint(body: JsonValue): Promise<string> {
  return sha256Hex(canonicalJson(body));
}
