import { sha256Hex } from "./hex";
import { isJsonObject, type JsonValue } from "./json";

/** Text already written out, waiting on the work stack between values. */
class Literal {
  constructor(readonly text: string) {}
}

/**
 * Canonical form of a parsed body (spec: idempotency "same body"): object keys in their original order,
 * no insignificant whitespace, strings (keys too) in Unicode NFC, numbers in shortest round-trip form.
 * Iterative (an explicit stack), so any nesting depth the parser accepted is fine.
 */
export function canonicalJson(value: JsonValue): string {
  const out: string[] = [];
  const work: Array<JsonValue | Literal> = [value];
  while (work.length > 0) {
    const item = work.pop()!;
    if (item instanceof Literal) out.push(item.text);
    else if (item === null || typeof item === "boolean") out.push(String(item));
    else if (typeof item === "number") out.push(JSON.stringify(item));
    else if (typeof item === "string") out.push(JSON.stringify(item.normalize("NFC")));
    else if (Array.isArray(item)) {
      out.push("[");
      work.push(new Literal("]"));
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i]!);
        if (i > 0) work.push(new Literal(","));
      }
    } else if (isJsonObject(item)) {
      out.push("{");
      work.push(new Literal("}"));
      for (let i = item.entries.length - 1; i >= 0; i--) {
        const [k, v] = item.entries[i]!;
        work.push(v, new Literal(`${JSON.stringify(k.normalize("NFC"))}:`));
        if (i > 0) work.push(new Literal(","));
      }
    } else throw new TypeError("not a JSON value");
  }
  return out.join("");
}

/** The request fingerprint kept in an idempotency record. */
export function requestFingerprint(body: JsonValue): Promise<string> {
  return sha256Hex(canonicalJson(body));
}
