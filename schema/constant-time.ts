/**
 * Constant-time string equality: every character is compared whatever the first difference, so only the
 * length can leak through timing. Compare digests (SHA-256 / HMAC hex) of secrets, never the secrets.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
