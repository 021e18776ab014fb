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

/**
 * A plain JS value of a JSON tree (objects as records; integer-like keys may reorder, so only for bodies whose
 * key order does not matter). Iterative, so any nesting depth the parser accepted is fine.
 */
export function plainJson(v: JsonValue): unknown {
  return toPlain(v);
}

/**
 * The plain value of a tree, built with an explicit stack (never recursion: a body may nest 100,000 deep).
 * Members are defined as own properties in source order, `__proto__` included.
 */
export function toPlain(v: JsonValue): unknown {
  const root: unknown[] = [undefined];
  const work: Array<{ node: JsonValue; into: unknown[] | Record<string, unknown>; key: string | number }> = [
    { node: v, into: root, key: 0 },
  ];
  while (work.length > 0) {
    const { node, into, key } = work.pop()!;
    let value: unknown = node;
    if (Array.isArray(node)) {
      const items: unknown[] = new Array(node.length);
      for (let i = node.length - 1; i >= 0; i--) work.push({ node: node[i]!, into: items, key: i });
      value = items;
    } else if (isJsonObject(node)) {
      const obj: Record<string, unknown> = {};
      for (const [k] of node.entries) define(obj, k, undefined);
      for (const [k, x] of node.entries) work.push({ node: x, into: obj, key: k });
      value = obj;
    }
    define(into, key, value);
  }
  return root[0];
}

function define(into: unknown[] | Record<string, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
}
