/** Lower-case hex and SHA-256 digests, one implementation for the Worker, the GPU worker and the tools (Web Crypto). */

const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

/** Lower-case hex of `bytes`. */
export function hex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (const b of view) out += BYTE_HEX[b];
  return out;
}

/** SHA-256 (lower-case hex) of `data`: a string's UTF-8 bytes, or the bytes given. */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", typeof data === "string" ? encoder.encode(data) : data));
}
