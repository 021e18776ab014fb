/** The shell-quoted form of `s` for a POSIX shell ('…' with embedded quotes closed and escaped). */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/** A decide call with `body` as curl, against this console's origin, the key read from `$SVC_API_KEY`. */
export function decideCurl(body: unknown): string {
  return `curl ${location.origin}/v1/decide \\\n  -H "authorization: Bearer $SVC_API_KEY" \\\n  -H "content-type: application/json" \\\n  -d ${shellQuote(JSON.stringify(body))}`;
}
