import fc from "fast-check";
import { foldLabel } from "../../workers/decide/uniqueness";
import { deepNest } from "./deep";
import { cloneTree, containers, hasRepeatedKey, isObj, type Obj, type Tree, writeTree } from "./tree";

/** One generated request body and what the oracle may expect of it. */
export interface Body {
  /** Which generator made it (for the counts). */
  kind: "valid" | "mutated" | "faulty" | "json" | "corrupted" | "noise" | "deep";
  bytes: Uint8Array;
  /** Built to pass every step (only the token limits may still refuse it). */
  valid: boolean;
  /** A member was repeated on purpose. */
  duplicated: boolean;
}

const encoder = new TextEncoder();

// Short texts without outer whitespace and without `{` (so no `{{path}}` reference appears by chance).
const word = fc
  .string({
    minLength: 1,
    maxLength: 24,
    unit: fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABC0123456789 _-.?é") },
      { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
    ),
  })
  .map((s) => s.trim().replaceAll("{", "("))
  .filter((s) => s.length > 0);
const key = fc.string({ minLength: 1, maxLength: 12 });
const questionId = fc
  .tuple(fc.constantFrom(..."abcqXYZ"), fc.string({ maxLength: 10, unit: fc.constantFrom(..."az09_-Q") }))
  .map(([a, b]) => a + b);

const scalar: fc.Arbitrary<Tree> = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const json: fc.Arbitrary<Tree> = fc.letrec<{ v: Tree }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    scalar,
    fc.array(tie("v"), { maxLength: 3 }),
    fc
      .uniqueArray(fc.tuple(key, tie("v")), { maxLength: 3, selector: ([k]) => k })
      .map((obj): Tree => ({ obj })),
  ),
})).v;

const state: fc.Arbitrary<Tree> = fc.oneof(
  word,
  fc
    .uniqueArray(fc.tuple(key, json), { minLength: 1, maxLength: 4, selector: ([k]) => k })
    .map((obj): Tree => ({ obj })),
  fc.array(json, { minLength: 1, maxLength: 4 }),
);

const uniqueWords = (min: number, max: number) =>
  fc.uniqueArray(word, { minLength: min, maxLength: max, selector: foldLabel });

const question: fc.Arbitrary<Tree> = fc
  .tuple(
    fc.oneof(
      uniqueWords(1, 8).chain((labels) =>
        fc.array(fc.option(word, { nil: null }), { minLength: labels.length, maxLength: labels.length }).map(
          (ds): Array<[string, Tree]> => [
            ["type", "pick"],
            ["options", { obj: labels.map((l, i): [string, Tree] => [l, ds[i] ?? null]) }],
          ],
        ),
      ),
      uniqueWords(2, 10).map(
        (levels): Array<[string, Tree]> => [
          ["type", "rate"],
          ["levels", levels],
        ],
      ),
      fc.constant<Array<[string, Tree]>>([["type", "check"]]),
    ),
    word,
    fc.option(fc.oneof(word, fc.array(word, { minLength: 1, maxLength: 3 }), fc.constant(null)), {
      nil: undefined,
    }),
    fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  )
  .map(([typed, instructions, criteria, minConfidence]): Tree => {
    const obj: Array<[string, Tree]> = [...typed, ["instructions", instructions]];
    if (criteria !== undefined) obj.push(["criteria", criteria]);
    if (minConfidence !== undefined) obj.push(["min_confidence", minConfidence]);
    return { obj };
  });

/** A body built to pass every check (labels and levels unique ignoring case, no references). */
export const validTree: fc.Arbitrary<Obj> = fc
  .record({
    model: fc.option(fc.constantFrom("svc-1", "svc-1.0.0"), { nil: undefined }),
    fallback: fc.option(fc.constantFrom("allow", "never"), { nil: undefined }),
    state,
    questions: fc.uniqueArray(fc.tuple(questionId, question), {
      minLength: 1,
      maxLength: 6,
      selector: ([k]) => k,
    }),
  })
  .map((r) => {
    const obj: Array<[string, Tree]> = [];
    if (r.model !== undefined) obj.push(["model", r.model]);
    obj.push(["state", r.state], ["questions", { obj: r.questions }]);
    if (r.fallback !== undefined) obj.push(["fallback", r.fallback]);
    return { obj };
  });

/** Values that break a rule when put anywhere: wrong types, blanks, long texts, odd numbers, deep nests. */
const junk: fc.Arbitrary<Tree> = fc.oneof(
  json,
  fc.constantFrom<Tree>(
    "",
    " ",
    "\u00a0\t",
    "pick",
    "rate",
    "check",
    "svc-0.9.0",
    "svc-2",
    "svc-1.0",
    "{{a.b}}",
    "{{0}}",
    "{{ }}",
  ),
  fc.constantFrom(1, 101, 201, 501, 1001, 4001, 65_537).map((n) => "x".repeat(n)),
  fc
    .constantFrom("-0", "1e400", "-1e400", "1E-400", "0.00000000000000000001", "1.0000001", "2", "-1", "1e2")
    .map((raw) => ({ raw })),
  fc.constantFrom('"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\\u0000"').map((raw) => ({ raw })),
  fc.integer({ min: 30, max: 40 }).map((depth) => {
    let t: Tree = "deep";
    for (let i = 0; i < depth; i++) t = i % 2 ? [t] : { obj: [["k", t]] };
    return t;
  }),
);

type Mutation = "delete" | "add" | "replace" | "duplicate" | "case-duplicate" | "grow";
const MUTATIONS: Mutation[] = ["delete", "add", "replace", "duplicate", "case-duplicate", "grow"];

/** Applies one mutation at container `site` (an index into the tree's containers). */
function mutate(root: Tree, site: number, m: Mutation, pick: number, value: Tree, name: string): void {
  const all = containers(root);
  const c = all[site % all.length]!;
  const list: Array<[string, Tree]> | Tree[] = isObj(c) ? c.obj : c;
  const i = list.length === 0 ? 0 : pick % list.length;
  if (m === "delete") list.splice(i, 1);
  else if (m === "add" || list.length === 0)
    isObj(c) ? c.obj.splice(i, 0, [name, value]) : c.splice(i, 0, value);
  else if (m === "replace") {
    if (isObj(c)) c.obj[i]![1] = value;
    else c[i] = value;
  } else if (m === "grow") {
    const n = [33, 256, 11, 21][pick % 4]!;
    for (let k = 0; k < n; k++)
      isObj(c) ? c.obj.push([`${name}${k}`, cloneTree(c.obj[i]![1])]) : c.push(cloneTree(c[i]!));
  } else if (isObj(c)) {
    const [k, v] = c.obj[i]!;
    c.obj.push([
      m === "duplicate" ? k : k.toUpperCase() === k ? k.toLowerCase() : k.toUpperCase(),
      cloneTree(v),
    ]);
  } else c.push(cloneTree(c[i]!));
}

const mutation = fc.tuple(fc.nat(), fc.constantFrom(...MUTATIONS), fc.nat(), junk, key);

/** A valid body with one to three mutations. */
const mutated = fc
  .tuple(validTree, fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.constantFrom("", " ", "\n\t"))
  .map(([valid, ms, pad]): Body => {
    const tree = cloneTree(valid); // generated values share constants: never edit them in place
    for (const [site, m, pick, value, name] of ms) mutate(tree, site, m, pick, cloneTree(value), name);
    return {
      kind: "mutated",
      bytes: encoder.encode(writeTree(tree, pad)),
      valid: false,
      duplicated: hasRepeatedKey(tree),
    };
  });

/** A valid body with its text cut, spliced or prefixed. */
const corrupted = fc
  .tuple(
    validTree,
    fc.nat(),
    fc.nat({ max: 8 }),
    fc.constantFrom(
      "",
      "{",
      "}",
      "[",
      "]",
      '"',
      ",",
      ":",
      "\\",
      "\\u",
      "\\ud800",
      "0",
      "-",
      "e",
      "\u0000",
      "\ufeff",
      "nul",
      "\u2028",
    ),
  )
  .map(([tree, at, cut, insert]): Body => {
    const text = writeTree(tree);
    const p = at % (text.length + 1);
    return {
      kind: "corrupted",
      bytes: encoder.encode(text.slice(0, p) + insert + text.slice(p + cut)),
      valid: false,
      duplicated: false,
    };
  });

/** Any JSON text (including lone surrogates JSON.stringify escapes), in a few whitespace styles. */
const anyJson = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(undefined, 1, "\t")).map(
  ([v, space]): Body => ({
    kind: "json",
    bytes: encoder.encode(JSON.stringify(v, null, space) ?? "null"),
    valid: false,
    duplicated: false,
  }),
);

/** Bytes and strings that are mostly not JSON (not UTF-8 either, sometimes). */
const noise = fc
  .oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.string({ unit: "binary", maxLength: 64 }).map((s) => encoder.encode(s)),
  )
  .map((bytes): Body => ({ kind: "noise", bytes, valid: false, duplicated: false }));

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${(i * 7919) % 100_003}`).join(" ");

/** The `questions` object of a body built by `validTree`. */
const questionsOf = (body: Obj): Obj => body.obj.find(([k]) => k === "questions")![1] as Obj;

/** Sets a member: replaces the value of the first member named `key`, or appends one. */
function set(o: Obj, key: string, value: Tree): void {
  const m = o.obj.find(([k]) => k === key);
  if (m) m[1] = value;
  else o.obj.push([key, value]);
}

/** Rule-breaking edits aimed at one field: the later steps' codes (model, references, token limits). */
const FAULTS: Array<(body: Obj, q: Obj, pick: number) => void> = [
  (b, _, pick) => set(b, "model", ["svc-0.9.0", "svc-2", "svc-1.0.1", "svc-01", "SVC-1"][pick % 5]!),
  (_, q, pick) => set(q, "criteria", ["{{missing.path}}", "{{0}}", "see {{ a }}"][pick % 3]!),
  (_, q) => set(q, "instructions", words(600)),
  (_, q) =>
    set(
      q,
      "criteria",
      Array.from({ length: 20 }, () => words(70)),
    ),
  (b, _, pick) => set(b, "state", words(3_000 + 500 * (pick % 12))),
  (b) => set(b, "state", "x".repeat(65_537)),
  (b, q, pick) => {
    const questions = questionsOf(b);
    const long = cloneTree(q) as Obj;
    set(long, "instructions", words(550));
    for (let i = 0; i < 2 + (pick % 10); i++) questions.obj.push([`long${i}`, cloneTree(long)]);
  },
];

/** A valid body with one aimed fault. */
const faulty = fc.tuple(validTree, fc.nat(), fc.nat(), fc.nat()).map(([valid, f, at, pick]): Body => {
  const tree = cloneTree(valid) as Obj;
  const questions = questionsOf(tree).obj;
  const q = questions[at % questions.length]![1] as Obj;
  FAULTS[f % FAULTS.length]!(tree, q, pick);
  return {
    kind: "faulty",
    bytes: encoder.encode(writeTree(tree)),
    valid: false,
    duplicated: hasRepeatedKey(tree),
  };
});

const valid = fc.tuple(validTree, fc.constantFrom("", " ", "\r\n")).map(
  ([tree, pad]): Body => ({
    kind: "valid",
    bytes: encoder.encode(writeTree(tree, pad)),
    valid: true,
    duplicated: false,
  }),
);

/** A valid body with one member, or the whole body, replaced by a value nested thousands deep. */
const deep = fc.tuple(validTree, fc.nat(), fc.nat(), deepNest).map(([valid, site, pick, nest]): Body => {
  const tree = cloneTree(valid);
  const all = containers(tree);
  const c = all[site % (all.length + 1)];
  if (c === undefined)
    return { kind: "deep", bytes: encoder.encode(nest.raw), valid: false, duplicated: false };
  if (isObj(c)) {
    if (c.obj.length > 0) c.obj[pick % c.obj.length]![1] = nest;
    else c.obj.push(["deep", nest]);
  } else if (c.length > 0) c[pick % c.length] = nest;
  else c.push(nest);
  return { kind: "deep", bytes: encoder.encode(writeTree(tree)), valid: false, duplicated: false };
});

/**
 * The fuzzer's bodies: a fifth valid, the rest mutated, with an aimed fault, corrupted, any JSON, noise, and
 * one in a hundred nested thousands deep.
 */
export const bodies: fc.Arbitrary<Body> = fc.oneof(
  { weight: 200, arbitrary: valid },
  { weight: 300, arbitrary: mutated },
  { weight: 100, arbitrary: faulty },
  { weight: 200, arbitrary: corrupted },
  { weight: 100, arbitrary: anyJson },
  { weight: 90, arbitrary: noise },
  { weight: 10, arbitrary: deep },
);
