/**
 * A JSON tree that can hold what a JS object cannot: repeated keys, member order as written, and number
 * tokens as raw text (`1e400`, `-0`). The fuzzer builds bodies as trees, mutates them, and writes them out.
 */
export type Tree = null | boolean | number | string | Tree[] | Obj | Raw;

/** An object as its members in order (keys may repeat). */
export interface Obj {
  readonly obj: Array<[string, Tree]>;
}

/** A token written as is (a number in a form JSON.stringify would not write, or an escape sequence). */
export interface Raw {
  readonly raw: string;
}

export const isObj = (t: Tree): t is Obj => typeof t === "object" && t !== null && "obj" in t;
export const isRaw = (t: Tree): t is Raw => typeof t === "object" && t !== null && "raw" in t;

/** Writes a tree as JSON text; `pad` is put around every token (whitespace styles). */
export function writeTree(t: Tree, pad = ""): string {
  if (Array.isArray(t)) return `[${pad}${t.map((x) => writeTree(x, pad)).join(`${pad},${pad}`)}${pad}]`;
  if (isRaw(t)) return t.raw;
  if (isObj(t)) {
    const members = t.obj.map(([k, v]) => `${JSON.stringify(k)}${pad}:${pad}${writeTree(v, pad)}`);
    return `{${pad}${members.join(`${pad},${pad}`)}${pad}}`;
  }
  return JSON.stringify(t);
}

/** Every container of a tree (objects and arrays), depth first, for picking a mutation site. */
export function containers(t: Tree, out: Array<Obj | Tree[]> = []): Array<Obj | Tree[]> {
  if (Array.isArray(t)) {
    out.push(t);
    for (const x of t) containers(x, out);
  } else if (isObj(t)) {
    out.push(t);
    for (const [, v] of t.obj) containers(v, out);
  }
  return out;
}

/** A deep copy (mutations edit in place). */
export function cloneTree(t: Tree): Tree {
  if (Array.isArray(t)) return t.map(cloneTree);
  if (isObj(t)) return { obj: t.obj.map(([k, v]) => [k, cloneTree(v)]) };
  return t;
}

/** True when some object of the tree repeats a key (character for character). */
export function hasRepeatedKey(t: Tree): boolean {
  return containers(t).some((c) => isObj(c) && new Set(c.obj.map(([k]) => k)).size < c.obj.length);
}
