/**
 * An order-preserving JSON value. Plain JS objects reorder integer-like keys ("1", "10"), but the spec keeps
 * the caller's key order (pick options, state fields, the idempotency fingerprint), so the strict parser
 * produces this tree and everything downstream reads it.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

export interface JsonObject {
  readonly kind: "object";
  /** Members in source order; keys are unique (the parser rejects repeats with `duplicate_key`). */
  readonly entries: ReadonlyArray<readonly [string, JsonValue]>;
}

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function jsonObject(entries: ReadonlyArray<readonly [string, JsonValue]>): JsonObject {
  return { kind: "object", entries };
}

/** Value of a member, or undefined when absent. */
export function getMember(obj: JsonObject, key: string): JsonValue | undefined {
  for (const [k, v] of obj.entries) if (k === key) return v;
  return undefined;
}

/** A plain JS value of a JSON tree (objects as records; integer-like keys may reorder, so only for bodies whose key order does not matter). */
export function plainJson(v: JsonValue): unknown {
  if (Array.isArray(v)) return v.map(plainJson);
  if (isJsonObject(v)) return Object.fromEntries(v.entries.map(([k, x]) => [k, plainJson(x)]));
  return v;
}
