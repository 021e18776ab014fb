/**
 * RFC 6901 JSON pointers, used as `param` of `duplicate_key` (spec: Errors → envelope).
 */

/** Escape one reference token: `~` → `~0`, then `/` → `~1`. */
export function escapePointerToken(token: string): string {
  if (token.indexOf("~") === -1 && token.indexOf("/") === -1) return token;
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Pointer for a path of object keys and array indexes; the empty path is the whole document (`""`). */
export function toJsonPointer(path: ReadonlyArray<string | number>): string {
  let out = "";
  for (const seg of path) out += "/" + (typeof seg === "number" ? String(seg) : escapePointerToken(seg));
  return out;
}

/** Reference tokens of a pointer (inverse of `toJsonPointer`, numbers stay strings); null if malformed. */
export function parseJsonPointer(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split("/")) {
    if (/~[^01]|~$/.test(raw)) return null;
    tokens.push(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return tokens;
}
