/** A parsed Stripe form body: nested objects and arrays, leaves as strings. */
export type FormValue = string | FormValue[] | { [k: string]: FormValue };

function setPath(root: Record<string, FormValue>, path: string[], value: string): void {
  let node: Record<string, FormValue> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    if (typeof node[k] !== "object" || node[k] === null) node[k] = {};
    node = node[k] as Record<string, FormValue>;
  }
  node[path[path.length - 1]!] = value;
}

/** Objects whose keys are all 0..n-1 become arrays (Stripe's `line_items[0][…]`). */
function arrays(v: FormValue): FormValue {
  if (typeof v === "string" || Array.isArray(v)) return v;
  const keys = Object.keys(v);
  const out: Record<string, FormValue> = {};
  for (const k of keys) out[k] = arrays(v[k]!);
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => out[k]!);
  return out;
}

/** Parses `a[b][0][c]=x&…` (the encoding the Stripe SDK sends) into nested values. */
export function parseStripeForm(body: string): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const head = key.split("[", 1)[0]!;
    const rest = [...key.slice(head.length).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!);
    setPath(root, [head, ...rest], value);
  }
  return arrays(root) as Record<string, FormValue>;
}

/** A string leaf at a path, if any. */
export function str(v: FormValue | undefined, ...path: (string | number)[]): string | undefined {
  let node: FormValue | undefined = v;
  for (const p of path) {
    if (node === undefined || typeof node === "string") return undefined;
    node = (node as Record<string | number, FormValue>)[p];
  }
  return typeof node === "string" ? node : undefined;
}

/** A string-to-string map (metadata) at a key. */
export function stringMap(v: FormValue | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === "object" && !Array.isArray(v))
    for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
}
