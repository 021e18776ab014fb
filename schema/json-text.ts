import { isJsonObject, type JsonValue } from "./json";
import { parseStrictJson } from "./strict-json";

/** JSON text of an order-preserving tree, exactly as sent (key order kept, strings not normalised). */
export function jsonText(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(jsonText).join(",")}]`;
  if (isJsonObject(v))
    return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(",")}}`;
  return JSON.stringify(v);
}

/** The tree of JSON text this module wrote (stored items); throws on anything else. */
export function readJsonText(text: string): JsonValue {
  const r = parseStrictJson(text);
  if (!r.ok) throw new Error(`stored JSON unreadable: ${r.code}`);
  return r.value;
}
