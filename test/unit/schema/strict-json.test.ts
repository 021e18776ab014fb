import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../../schema/json";
import { jsonToPlain, parseStrictJson } from "../../../schema/strict-json";

/** True when a string holds an unpaired UTF-16 surrogate (String#isWellFormed is ES2024, past our lib). */
const notWellFormed = (s: string) => /\p{Surrogate}/u.test(s);

/** Oracle: JSON.parse, plus the two strict rules checked independently of the parser under test. */
function hasLoneSurrogate(v: unknown): boolean {
  if (typeof v === "string") return notWellFormed(v);
  if (Array.isArray(v)) return v.some(hasLoneSurrogate);
  if (v !== null && typeof v === "object") {
    return Object.entries(v).some(([k, x]) => notWellFormed(k) || hasLoneSurrogate(x));
  }
  return false;
}

function parseOk(text: string): JsonValue {
  const r = parseStrictJson(text);
  if (!r.ok) throw new Error(`rejected ${JSON.stringify(text)}: ${r.code} ${r.message}`);
  return r.value;
}

/** Serialises with random insignificant whitespace and random `\u` escapes of characters. */
function looseStringify(v: unknown, ws: () => string, esc: () => boolean): string {
  const str = (s: string) =>
    '"' +
    [...s]
      .map((ch) => {
        const j = JSON.stringify(ch).slice(1, -1);
        if (!esc()) return j;
        return [...ch].length === 1 && ch.length === 2
          ? [ch.charCodeAt(0), ch.charCodeAt(1)].map((u) => "\\u" + u.toString(16).padStart(4, "0")).join("")
          : "\\u" + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      })
      .join("") +
    '"';
  const go = (x: unknown): string => {
    if (typeof x === "string") return str(x);
    if (Array.isArray(x)) return "[" + ws() + x.map((i) => go(i) + ws()).join("," + ws()) + "]";
    if (x !== null && typeof x === "object") {
      const members = Object.entries(x).map(([k, i]) => str(k) + ws() + ":" + ws() + go(i) + ws());
      return "{" + ws() + members.join("," + ws()) + "}";
    }
    return JSON.stringify(x);
  };
  return ws() + go(v) + ws();
}

describe("strict parser agrees with JSON.parse on valid documents", () => {
  it("fc.json(): same structure", () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), (text) => {
        expect(jsonToPlain(parseOk(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it("full-Unicode strings, random whitespace and random \\u escapes", () => {
    const wsArb = fc.array(fc.constantFrom(" ", "\t", "\n", "\r"), { maxLength: 3 }).map((a) => a.join(""));
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 5, stringUnit: "grapheme" }),
        fc.infiniteStream(wsArb),
        fc.infiniteStream(fc.boolean()),
        (v, wss, escs) => {
          const w = wss[Symbol.iterator]();
          const e = escs[Symbol.iterator]();
          const text = looseStringify(
            v,
            () => w.next().value as string,
            () => e.next().value as boolean,
          );
          expect(jsonToPlain(parseOk(text))).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ["0"],
    ["-0"],
    ["1e400"],
    ["-1.5E-7"],
    ["123456789012345678901234567890"],
    ['"\\/\\b\\f\\n\\r\\t\\"\\\\"'],
    ['"\\ud83d\\ude00"'],
    ['"😀é"'],
    [" \n\t\r null \n"],
    ["[true,false,null]"],
  ])("%s", (text) => {
    const ours = jsonToPlain(parseOk(text));
    expect(
      Object.is(ours, JSON.parse(text)) || JSON.stringify(ours) === JSON.stringify(JSON.parse(text)),
    ).toBe(true);
  });

  it("keeps member order, including integer-like keys", () => {
    const v = parseOk('{"b":1,"10":2,"a":3,"2":4}');
    expect(v).toEqual({
      kind: "object",
      entries: [
        ["b", 1],
        ["10", 2],
        ["a", 3],
        ["2", 4],
      ],
    });
  });
});

describe("invalid_json: rejects exactly where JSON.parse rejects (plus lone surrogate escapes)", () => {
  const mutate = fc
    .tuple(
      fc.json({ maxDepth: 4 }),
      fc.nat(),
      fc.constantFrom("del", "ins", "rep"),
      fc.constantFrom(...'{}[],:"\\ 0-1.eEtfnu\x00\x1fa'),
    )
    .map(([text, at, op, ch]) => {
      const i = text.length === 0 ? 0 : at % (text.length + (op === "ins" ? 1 : 0));
      if (op === "del") return text.slice(0, i) + text.slice(i + 1);
      if (op === "ins") return text.slice(0, i) + ch + text.slice(i);
      return text.slice(0, i) + ch + text.slice(i + 1);
    });

  it("mutated documents", () => {
    fc.assert(
      fc.property(mutate, (text) => {
        let expected: "ok" | "invalid_json";
        try {
          expected = hasLoneSurrogate(JSON.parse(text)) ? "invalid_json" : "ok";
        } catch {
          expected = "invalid_json";
        }
        const r = parseStrictJson(text);
        const got = r.ok ? "ok" : r.code === "duplicate_key" ? "ok" : r.code;
        expect(got).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ["empty", ""],
    ["whitespace only", "  \n"],
    ["trailing comma in array", "[1,]"],
    ["trailing comma in object", '{"a":1,}'],
    ["single quotes", "{'a':1}"],
    ["unquoted key", "{a:1}"],
    ["leading zero", "01"],
    ["plus sign", "+1"],
    ["bare dot", "1."],
    ["leading dot", ".5"],
    ["exponent without digits", "1e"],
    ["NaN", "NaN"],
    ["Infinity", "Infinity"],
    ["raw control char", '"a\u0001b"'],
    ["raw newline in string", '"a\nb"'],
    ["bad escape", '"\\x41"'],
    ["short \\u", '"\\u12"'],
    ["non-hex \\u", '"\\u12g4"'],
    ["unterminated string", '"abc'],
    ["unclosed array", "[1,2"],
    ["unclosed object", '{"a":1'],
    ["two values", "1 2"],
    ["comment", "[1]//x"],
    ["BOM inside", "\uFEFF[1]"],
    ["lone high surrogate escape", '"\\ud83d"'],
    ["lone low surrogate escape", '"\\ude00"'],
    ["high then non-low escape", '"\\ud83d\\u0041"'],
    ["reversed pair", '"\\ude00\\ud83d"'],
    ["lone surrogate escape in a key", '{"\\ud800":1}'],
    ["high surrogate then end", '"\\ud83d'],
  ])("%s", (_name, text) => {
    const r = parseStrictJson(text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.code).toBe("invalid_json");
  });

  it("\\u escapes of arbitrary UTF-16 code units: rejected exactly when a surrogate is unpaired", () => {
    const unit = fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff }));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 8 }), (units) => {
        const text = `"${units.map((u) => "\\u" + u.toString(16).padStart(4, "0")).join("")}"`;
        const decoded = String.fromCharCode(...units);
        const r = parseStrictJson(text);
        if (notWellFormed(decoded)) expect(!r.ok && r.code).toBe("invalid_json");
        else expect(r).toEqual({ ok: true, value: JSON.parse(text) });
      }),
      { numRuns: 2000 },
    );
  });

  it("a parse error later in the body wins over an earlier duplicate key", () => {
    const r = parseStrictJson('{"a":1,"a":2,}');
    expect(!r.ok && r.code).toBe("invalid_json");
  });
});

describe("duplicate_key: `param` is the RFC 6901 pointer of the repeated member", () => {
  it.each([
    ['{"a":1,"a":2}', "/a"],
    ['{"questions":{"q1":{"options":{"Yes":null,"No":null,"Yes":null}}}}', "/questions/q1/options/Yes"],
    ['{"s":[{"x":1},{"y":1,"y":2}]}', "/s/1/y"],
    ['{"a/b":{"m~n":1,"m~n":2}}', "/a~1b/m~0n"],
    ['{"":1,"":2}', "/"],
    ['[[],[{"k":{"z":0},"k":[]}]]', "/1/0/k"],
    ['{"\\u0061":1,"a":2}', "/a"],
    ['{"first":{"x":1,"x":1},"second":{"y":1,"y":1}}', "/first/x"],
  ])("%s → %s", (text, pointer) => {
    const r = parseStrictJson(text);
    expect(r).toMatchObject({ ok: false, code: "duplicate_key", pointer });
  });

  it("large objects (Set path) detect repeats too", () => {
    const keys = Array.from({ length: 300 }, (_, i) => `"k${i}":${i}`);
    expect(parseStrictJson(`{${keys.join(",")},"k150":0}`)).toMatchObject({
      code: "duplicate_key",
      pointer: "/k150",
    });
    expect(parseStrictJson(`{${keys.join(",")}}`).ok).toBe(true);
  });

  it("same key in different objects is fine", () => {
    expect(parseStrictJson('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}').ok).toBe(true);
  });
});

describe("deep nesting is depth-safe", () => {
  it.each([10_000, 130_000])("%i nested arrays parse without a stack overflow", (n) => {
    const r = parseStrictJson("[".repeat(n) + "]".repeat(n));
    expect(r.ok).toBe(true);
    let v = r.ok ? r.value : null;
    let depth = 0;
    while (Array.isArray(v)) {
      depth++;
      v = v[0] ?? null;
    }
    expect(depth).toBe(n);
  });

  it("10,000 unclosed `[` is invalid_json, not a crash", () => {
    expect(parseStrictJson("[".repeat(10_000))).toMatchObject({ ok: false, code: "invalid_json" });
  });

  it("deep objects report a duplicate pointer at depth", () => {
    const n = 5_000;
    const text = '{"a":'.repeat(n) + '{"d":1,"d":2}' + "}".repeat(n);
    const r = parseStrictJson(text);
    expect(r).toMatchObject({ code: "duplicate_key", pointer: "/a".repeat(n) + "/d" });
  });
});
